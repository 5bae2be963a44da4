// The development media server's scripted meetings list their action items as the sentences spoken ("Bob will send the
// slides by Friday."); the builtin analyser writes an item as "Owner: task" (docs/decisions.md §9). This is the item the
// analyser should write for each scripted sentence.
export function asOwnerTask(sentence: string): string {
  const match = /^(\S+) will (.+?)\.?$/u.exec(sentence.trim());
  if (!match) throw new Error(`not a scripted action item: ${sentence}`);
  return `${match[1]}: ${match[2]}`;
}
