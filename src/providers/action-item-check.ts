// The checks every action item passes, whoever proposed it (docs/decisions.md §9): the builtin analyser's rules and a
// language model behind `openai-compatible` alike. An item reads "Owner: task" (or the task alone when the meeting
// names no one), the task starts with a word (a verb or its object), never with punctuation or a filler, is in the
// third person, says something to do, and keeps its deadline. A model's item is also grounded: its content words occur
// in the part of the transcript it came from, and its owner is a name said there. Items of several parts of a long
// meeting are merged without duplicates.
import { isStatement } from './builtin/names.ts';

/** A recogniser's speaker label (`speaker_0`, `Speaker 2`, `spk_1`, `A`): never a person's name. */
const SPEAKER_LABEL = /^(?:(?:speaker|spk|spkr)[ _-]?\d+|[A-Z]|SPEAKER_\d+)$/i;
/** An owner prefix: `Name: ` at the start of an item. */
const OWNER_PREFIX = /^([^:\n]{1,60}):\s*/;
/** Empty owners models write when the meeting names none. */
const NO_OWNER = /^(?:null|none|n\/?a|unknown|unassigned|tbd|nobody|no one|someone|somebody|everyone|everybody|all|team|the team|-)$/i;
const FILLER_START = /^(?:um+|uh+|uhm|er+m?|hmm+|ah|oh|so|and|but|also|then|okay|ok|alright|well|yeah|yes|yep|sure|right|like|just)\b[\s,.]*/i;
const SECOND_PERSON = /\b(?:you|your|yours|yourself|yourselves)\b/i;
/** A clause about the speaker after the task: ", and I'll read it over the weekend", "so I can check it". */
const FIRST_PERSON_TAIL = /[\s,;]+(?:and|but|so|then|while)\s+I(?:'ll|'m|'d| will| can| could| would)?(?![\p{L}']).*$/u;
/** Words that carry no task: pronouns, determiners, prepositions, time words, acknowledgements. */
const EMPTY_WORDS = new Set(
  `i me my you your he him his she her it its we us our they them their this that these those one the a an some any to
  of for on in at by with from about into over after before up out off down back and or then there here all both each
  every today tonight tomorrow week weekend month next last morning afternoon evening day end soon later now asap first
  time again also just too well please thanks ok okay right done sure will do can yes yeah yep no will it that's so
  monday tuesday wednesday thursday friday saturday sunday is are be get go going got thing things stuff as if than
  not possible need needs should would could might must has have had was were been being who what which when where
  why how very more most less much many can't don't won't until within`.split(/\s+/),
);

/**
 * A task starts with a verb or its object; one that starts with a subject or a modal is a sentence copied from the
 * meeting ("we are not giving 30%", "may I take …", "them can offer 10").
 */
const SENTENCE_START = /^(?:i|i'm|i'll|i've|we|we're|we'll|they|they're|they'll|he|she|them|us|may|might|can|could|would|should|must|shall)\b/i;
/** Thanks and praise: "great job on that", "thanks for the update". */
const PRAISE = /^(?:(?:great|nice|good|excellent|awesome|amazing)\s+(?:job|work|point|idea|question|stuff)|thanks|thank you|well done|kudos)\b/i;

export interface SplitItem {
  owner: string | null;
  task: string;
}

/** "Owner: task" → owner and task; an item without a prefix has no owner. */
export function splitOwner(item: string): SplitItem {
  const text = item.trim();
  const match = OWNER_PREFIX.exec(text);
  if (!match) return { owner: null, task: text };
  return { owner: match[1].trim(), task: text.slice(match[0].length).trim() };
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
}

/** Words that say what is to be done (not pronouns, dates, acknowledgements). */
export function contentWords(task: string): string[] {
  return words(task).filter((word) => !EMPTY_WORDS.has(word) && !/^\d+$/.test(word) && word.length > 1);
}

/** An owner as written: one to three words, each capitalised (a title may end in "."), not a label or placeholder. */
function ownerProblem(owner: string): string | undefined {
  if (SPEAKER_LABEL.test(owner)) return 'the owner is a recogniser label';
  if (NO_OWNER.test(owner)) return 'the owner is a placeholder';
  const parts = owner.split(/\s+/);
  if (parts.length > 3 || !parts.every((part) => /^\p{Lu}[\p{L}'.-]*$/u.test(part))) return 'the owner is not a name';
  // "The: send the settlement …": a capitalised word that carries no name.
  if (parts.some((part) => EMPTY_WORDS.has(part.toLowerCase()))) return 'the owner is not a name';
  return undefined;
}

/**
 * The item with its owner only when the owner reads as a name: "For Thursday: read chapter six" (a due phrase set off
 * like a name said to someone) is "Read chapter six".
 */
export function withNamedOwner(item: string): string {
  const { owner, task } = splitOwner(item);
  if (owner === null || ownerProblem(owner) === undefined) return item;
  return task.charAt(0).toUpperCase() + task.slice(1);
}

/**
 * A promise on a condition is not (yet) a task: "call Sean when they hear back", "I'll send it once we agree". One
 * rule for the builtin analyser (which leaves such promises out) and for a model's items.
 */
export const ON_A_CONDITION = /\b(?:when|once|if|unless|as soon as|in case)\s+(?:i|we|you|they|them|he|she|it)\b/i;

/** What is wrong with an item as a tenant reads it; empty when nothing is. */
export function itemProblems(item: string): string[] {
  const problems: string[] = [];
  if (item !== item.trim() || /\s{2,}/.test(item)) problems.push('stray spaces');
  const { owner, task } = splitOwner(item);
  if (owner !== null) {
    const problem = ownerProblem(owner);
    if (problem) problems.push(problem);
  }
  if (/^[^\p{L}\p{N}]/u.test(task)) problems.push('the task starts with punctuation');
  else if (FILLER_START.test(task)) problems.push('the task starts with a filler');
  if (owner === null && /^\p{Ll}/u.test(task)) problems.push('an item without owner starts in lower case');
  if (SECOND_PERSON.test(task)) problems.push('the task is in the second person');
  if (words(task).length < 2 || contentWords(task).length === 0) problems.push('the task says nothing to do');
  else if (SENTENCE_START.test(task)) problems.push('the task is a sentence (a subject or a modal first), not something to do');
  else if (PRAISE.test(task)) problems.push('the task is thanks or praise');
  else if (isStatement(task)) problems.push('the task states what happens, not what someone will do');
  if (ON_A_CONDITION.test(task)) problems.push('the task waits on a condition');
  return problems;
}

/**
 * An item as the checks want it, where a fix is mechanical: spaces, a leading bullet, punctuation or filler, a
 * placeholder or label owner dropped, "you/your" in the third person ("their"), a capital when there is no owner.
 * Undefined when what is left says nothing to do.
 */
export function tidyItem(raw: string): string | undefined {
  const text = leadingNoiseOff(raw.replace(/\s+/g, ' ').trim().replace(/^(?:[-*•]\s+|\d{1,2}[.)]\s+)/, ''));
  let { owner, task } = splitOwner(text);
  // "Kevin from facilities" → "Kevin"; a label or placeholder → no owner.
  if (owner !== null && ownerProblem(owner) !== undefined) owner = /^(?:\p{Lu}[\p{L}'.-]*\s*){1,3}/u.exec(owner)?.[0].trim() ?? null;
  if (owner !== null && ownerProblem(owner) !== undefined) owner = null;
  task = leadingNoiseOff(task)
    // What the speaker adds about themself is not the task: "send Kim the draft by Friday and I'll read it" is "send
    // Kim the draft by Friday"; "write the cleanup job myself" is "write the cleanup job".
    .replace(FIRST_PERSON_TAIL, '')
    .replace(/\s+myself\b/giu, '')
    .replace(/[\s,;:-]+$/u, '')
    .replace(/\byourselves\b/gi, 'themselves')
    .replace(/\byourself\b/gi, 'themselves')
    .replace(/\byours\b/gi, 'theirs')
    .replace(/\byour\b/gi, 'their')
    .replace(/\byou\b/gi, 'them');
  if (words(task).length < 2 || contentWords(task).length === 0) return undefined;
  if (owner) return `${owner}: ${task.charAt(0).toLowerCase() === task.charAt(0) ? task : lowerFirst(task)}`;
  return task.charAt(0).toUpperCase() + task.slice(1);
}

/** Leading punctuation and fillers, however many: ", um, so send …" → "send …". */
export function leadingNoiseOff(text: string): string {
  let before: string;
  let out = text;
  do {
    before = out;
    out = out.replace(/^[^\p{L}\p{N}]+/u, '').replace(FILLER_START, '');
  } while (out !== before);
  return out;
}

/** "Send the notes" after an owner reads "send the notes"; "API keys" keeps its capitals. */
function lowerFirst(task: string): string {
  const first = task.split(' ')[0];
  return /^\p{Lu}\p{Ll}*$/u.test(first) && first.length > 1 ? task.charAt(0).toLowerCase() + task.slice(1) : task;
}

/**
 * A word without its ending, to its first five letters: "invoices" and "invoice", "scheduled" and "schedule", "owns"
 * and "own", "scanning" and "scan" compare equal (the rules keep a verb as it was said, a model writes it its own way).
 */
function stem(word: string): string {
  const bare = word.replace(/'s$/, '');
  const root = bare.replace(/(?:ing|ed|es|(?<!s)s|e)$/, '').replace(/([^aeiouls])\1$/, '$1');
  return (root.length >= 3 ? root : bare).slice(0, 5);
}

/**
 * Whether an item proposed by a model stands on what was said: at least half of its task's content words (by their
 * first five letters) occur in `source`, the part of the transcript it came from.
 */
export function isGrounded(task: string, source: string): boolean {
  const said = new Set(words(source).map(stem));
  const content = contentWords(task);
  if (content.length === 0) return false;
  return content.filter((word) => said.has(stem(word))).length * 2 >= content.length;
}

/** Whether every word of an owner's name occurs in `source` (a title such as "Dr." need not). */
export function isNameSaid(owner: string, source: string): boolean {
  const said = new Set(words(source));
  return owner
    .split(/\s+/)
    .filter((part) => !/\.$/.test(part))
    .every((part) => said.has(part.toLowerCase().replace(/'s$/, '')));
}

/** What the builtin analyser leaves out (docs/decisions.md §9): hedges and wishes, conditions, the past. */
const NOT_A_COMMITMENT = /\b(?:maybe|perhaps|probably|might|one day|someday|some day|if|would love|i'd love|could even|already|last (?:week|month|year|time|sprint)|yesterday|ago)\b/i;

/**
 * Whether the sentences a task comes from (those of `source` sharing the most of its content words) all say something
 * other than a commitment: "Maybe one day we can take the older class to the planetarium", "Last week Tom sent …".
 */
export function comesFromNonCommitment(task: string, source: string): boolean {
  const lines = source.split('\n').flatMap((line) => line.split(/(?<=[.!?])\s+/));
  const from = linesItComesFrom(task, lines);
  return from.length > 0 && from.every((i) => NOT_A_COMMITMENT.test(lines[i]!));
}

/** The indexes of the lines that share the most of the task's content words (by stem); none when no line shares one. */
function linesItComesFrom(task: string, lines: readonly string[]): number[] {
  const content = new Set(contentWords(task).map(stem));
  const shared = lines.map((line) => {
    const said = new Set(words(line).map(stem));
    return [...content].filter((word) => said.has(word)).length;
  });
  const best = Math.max(0, ...shared);
  return best === 0 ? [] : shared.flatMap((count, i) => (count === best ? [i] : []));
}

/** Words by which people take on or hand out a task: a promise, a request, an acceptance, an obligation. */
const COMMITMENT_CUE = /\b(?:will|\p{L}+'ll|i can|i'm going to|let's|let me|can you|could you|would you|please|need you|want you|your task|assign(?:ed)?|owns?|going to|has to|have to|needs? to|must)\b/iu;
/** An answer that takes a request on: "Sure.", "Yes, by Friday.", "I'll do it." (after the speaker's label). */
const ACCEPTING = /^(?:[^:\n]{1,40}:\s*)?(?:yes|yeah|yep|sure|okay|ok|of course|absolutely|will do|on it|no problem|i can|i will|i'll)\b/i;

/**
 * Whether a line the task comes from (those of `source` sharing the most of its content words), or the line after it
 * (an answer), says that someone will do something. A small model also turns reports and small talk into items
 * ("Andre: check the marketing" from "any news on the marketing?"): grounded in the words, but nobody took it on.
 */
export function comesFromCommitment(task: string, source: string): boolean {
  const lines = source.split('\n');
  return linesItComesFrom(task, lines).some((i) => COMMITMENT_CUE.test(lines[i]!) || ACCEPTING.test(lines[i + 1] ?? ''));
}

/**
 * A model's items for one part of a meeting, checked against that part: tidied, grounded, not taken from a hedge or
 * the past, taken from where someone takes on or hands out a task, an owner kept only when the name is said in the
 * part, and nothing left with a problem.
 */
export function checkProposedItems(items: readonly string[], source: string): string[] {
  const out: string[] = [];
  for (const raw of items) {
    const tidy = tidyItem(raw);
    if (tidy === undefined) continue;
    const { owner, task } = splitOwner(tidy);
    if (!isGrounded(task, source) || comesFromNonCommitment(task, source) || !comesFromCommitment(task, source)) continue;
    const item = owner !== null && !isNameSaid(owner, source) ? (tidyItem(task) ?? '') : tidy;
    if (item && itemProblems(item).length === 0) out.push(item);
  }
  return withoutOwnersInDoubt(out);
}

/**
 * One task a model gives to two people or more in one answer ("Zara: print the maps", "Amelia: print the maps"): it
 * does not know who, so the task stands once, with no owner (the rules' owner joins it where they found the task).
 * Measured with the 1.5 B model: an answer that runs on cycles its tasks through the room's names.
 */
function withoutOwnersInDoubt(items: readonly string[]): string[] {
  const entries = items.map((item) => {
    const { owner, task } = splitOwner(item);
    return { item, owner, task, words: taskWords(task) };
  });
  return entries.flatMap((entry) => {
    const same = entries.filter((other) => sameTask(entry.words, other.words));
    const owners = new Set(same.flatMap((other) => (other.owner === null ? [] : [other.owner.toLowerCase()])));
    if (owners.size < 2) return [entry.item];
    return same[0] === entry ? [tidyItem(entry.task) ?? entry.task] : [];
  });
}

/**
 * Whether two tasks' words are (nearly) the same: one item said twice, whatever its owner. The one measure of a repeat,
 * for the model's items here and for the builtin analyser's (builtin/action-items.ts `dedupe`).
 */
export function sameTask(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const shared = [...a].filter((w) => b.has(w)).length;
  const smaller = Math.min(a.size, b.size) || 1;
  return shared / smaller >= 0.8 || shared / new Set([...a, ...b]).size >= 0.6;
}

const taskWords = (task: string) => new Set(contentWords(task).map(stem));

/**
 * One list from several (the parts of a long meeting, or one model answer with repeats): an item whose content words
 * are (nearly) those of an earlier one is the same item; the one that names an owner is kept, in the earlier place.
 */
export function mergeItems(items: readonly string[], max = 50): string[] {
  const kept: Array<{ item: string; owner: string | null; words: Set<string> }> = [];
  for (const item of items) {
    const { owner, task } = splitOwner(item);
    const content = taskWords(task);
    const same = kept.find((other) => {
      if (owner !== null && other.owner !== null && owner.toLowerCase() !== other.owner.toLowerCase()) return false;
      return sameTask(content, other.words);
    });
    if (!same) kept.push({ item, owner, words: content });
    else if (same.owner === null && owner !== null) Object.assign(same, { item, owner });
  }
  return kept.slice(0, max).map((entry) => entry.item);
}

/**
 * A model's items with the builtin analyser's folded in (docs/decisions.md §9 "the model proposes, the rules check"):
 * a rule's item the model also found gives it the rule's owner (the rules name an owner only where the meeting says
 * who; a small model's owners are often guesses that happen to be said nearby), and one the model missed is added.
 */
export function withRuleItems(modelItems: readonly string[], ruleItems: readonly string[], max = 50): string[] {
  const items = modelItems.map((item) => {
    const { owner, task } = splitOwner(item);
    return { owner, task, words: taskWords(task) };
  });
  for (const rule of ruleItems) {
    const { owner, task } = splitOwner(rule);
    const words = taskWords(task);
    // Every model item of the same task takes the rule's owner: a small model may write one task twice, once for each
    // person in the exchange ("Jake: call the CFO", "Victoria: call the CFO"); the merge below then keeps one.
    const same = items.filter((item) => sameTask(words, item.words));
    if (same.length === 0) items.push({ owner, task, words });
    else if (owner !== null) for (const item of same) item.owner = owner;
  }
  return mergeItems(
    items.map((item) => (item.owner === null ? item.task : `${item.owner}: ${lowerFirst(item.task)}`)),
    max,
  );
}
