// Recogniser text for the builtin analyser: turns (one per segment) split into clauses where punctuation allows,
// discourse fillers stripped, and the capitalisation a task is written with.
import { startsWithVerb } from './names.ts';

export interface Turn {
  index: number;
  /** The provider's label, or null for text without labels. */
  speaker: string | null;
  clauses: string[];
}

/** One turn per segment; text with no segments is one unlabelled turn per sentence. */
export function turnsOf(input: { text: string; segments: ReadonlyArray<{ text: string; speaker: string | null }> }): Turn[] {
  const sources =
    input.segments.length > 0
      ? joinBrokenSentences(input.segments)
      : splitClauses(input.text).map((text) => ({ text, speaker: null as string | null }));
  return sources
    .map((source) => ({ speaker: source.speaker, clauses: splitClauses(byAsSaid(source.text)) }))
    .filter((turn) => turn.clauses.length > 0)
    .map((turn, index) => ({ ...turn, index }));
}

/** A day of the week, as a pattern to build on. */
export const DAY = String.raw`(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)`;
/**
 * "by" as a small recogniser hears it before a day: "send them over my Friday.", "the docks I Wednesday", "in my end of
 * next week". "my" only where the day ends the phrase ("swap my Sunday shift" is the speaker's own Sunday).
 */
const BY_MISHEARD = new RegExp(String.raw`\b(?:I\s+(?=(?:next\s+)?${DAY}\b|the end of\b)|my\s+(?=(?:next\s+)?${DAY}\s*(?:[.,!?]|$|I'll\b)|end of\b))`, 'giu');

function byAsSaid(text: string): string {
  return text.replace(BY_MISHEARD, 'by ');
}

/**
 * A recogniser that punctuates (most segments end a sentence or hold one's end) may still cut a sentence across
 * segments at a pause: "Kenji, can you add an expiry alert" + "to the monitoring dashboard?". Such a segment (no end
 * punctuation, the next by the same speaker starting in lower case, and with one label for everyone not an answer) is
 * joined to the next. Without punctuation nothing tells, so nothing is joined.
 */
function joinBrokenSentences(
  segments: ReadonlyArray<{ text: string; speaker: string | null }>,
): Array<{ text: string; speaker: string | null }> {
  const ends = (text: string) => /[.!?]["')\]]?\s*$/.test(text);
  // Punctuated: most segments end a sentence, or hold one's end ("… by Wednesday. Good, Tom, can you …" as a small
  // Whisper cuts a long turn every few seconds).
  const punctuated = (text: string) => ends(text) || /[.!?]\s+\S/.test(text);
  if (segments.filter((segment) => punctuated(segment.text)).length < segments.length / 2) return [...segments];
  // With one label for everyone, "yes, I will." after a request is another voice, not the request going on.
  const oneLabel = new Set(segments.map((segment) => segment.speaker)).size < 2;
  const answer = /^\s*(?:yes|yeah|yep|yup|sure|ok|okay|no|nope|of course|will do|absolutely|right)\b/i;
  const joined: Array<{ text: string; speaker: string | null }> = [];
  for (const segment of segments) {
    const last = joined[joined.length - 1];
    const continues = /^\s*\p{Ll}/u.test(segment.text) && !(oneLabel && answer.test(segment.text));
    if (last && last.speaker === segment.speaker && !ends(last.text) && continues) {
      last.text = `${last.text.trimEnd()} ${segment.text.trimStart()}`;
    } else {
      joined.push({ text: segment.text, speaker: segment.speaker });
    }
  }
  return joined;
}

/**
 * Sentences where the recogniser punctuated (". ", "? ", "! ", "; "), else the whole segment: a recogniser's segment
 * is already a breath or a turn, and splitting unpunctuated text on guessed boundaries cuts tasks in half.
 */
export function splitClauses(text: string): string[] {
  return text
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?;])\s+/)
    .flatMap(chunks)
    .map((clause) => clause.trim())
    .filter((clause) => /\p{L}/u.test(clause));
}

/** Longer than anyone says in one breath: unpunctuated text without segments. */
const MAX_CLAUSE_WORDS = 60;

/** A clause of more than MAX_CLAUSE_WORDS words in pieces of that size, so the rules' cost stays linear in the text. */
function chunks(clause: string): string[] {
  const words = clause.split(' ');
  if (words.length <= MAX_CLAUSE_WORDS) return [clause];
  const pieces: string[] = [];
  for (let at = 0; at < words.length; at += MAX_CLAUSE_WORDS) pieces.push(words.slice(at, at + MAX_CLAUSE_WORDS).join(' '));
  return pieces;
}

/** Words that open a clause without adding to it ("um ok so", "yeah", "and then"). */
const FILLER = /^(?:(?:um+|uh+|uhm|er+m?|hmm+|ah|oh|so|and|also|then|okay|ok|alright|all right|right|well|yeah|yes|yep|sure|no|great|good|cool|perfect|awesome|nice|agreed|anyway|now|next|but|good idea|sounds good|got it)\b[,.]?\s*)+/i;

export function stripFillers(clause: string): string {
  return clause.replace(FILLER, '').trim();
}

/** A question: a question mark, or (unpunctuated) a clause that opens like one. */
export function isQuestion(clause: string): boolean {
  if (/\?\s*$/.test(clause)) return true;
  if (/[.!]\s*$/.test(clause)) return false;
  return /^(?:is|are|was|were|do|does|did|should|shall|would|could|can|will|what|how|why|when|where|who|which|have|has)\b/i.test(
    stripFillers(clause),
  );
}

const CALENDAR = new RegExp(String.raw`\b(${DAY}|january|february|march|april|june|july|august|september|october|november|december)\b`, 'gi');

/** "Tom: write the release notes by Friday": the task in lower case after an owner, capitalised alone; days and months capitalised. */
export function writeItem(owner: string | null, task: string): string {
  const body = task
    .trim()
    .replace(/[\s,;:.!?-]+$/u, '')
    .replace(CALENDAR, (word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase());
  // After an owner, a sentence's capital goes ("Omar: book the van"); a name or "IT" keeps its capitals.
  if (owner) return `${owner}: ${/^\p{Lu}\p{Ll}+\b/u.test(body) && startsWithVerb(body) ? body.charAt(0).toLowerCase() + body.slice(1) : body}`;
  return body.charAt(0).toUpperCase() + body.slice(1);
}
