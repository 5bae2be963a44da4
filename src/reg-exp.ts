// Text matched literally inside a pattern built at run time: a path of the contract, a name, a due phrase or a noun
// phrase said in a meeting.

/** `text` with every character a pattern gives a meaning to escaped ("Dr. Patel" → "Dr\. Patel"). */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
