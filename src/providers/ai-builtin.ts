// The `builtin` AI analyser (DECISIONS §9): an extractive summary and rule-based action items, in the project,
// deterministic, no network. The same transcript always gives the same summary and the same items.
//
// Summary: the sentences that carry the meeting, scored by how many of the meeting's frequent content words they
// hold (per word, so long sentences do not win by length) plus a small bonus for the opening, kept in spoken order.
// Action items, one rule each:
//   - explicit markers: "Action item: …", "To do: …", "TODO: …"
//   - commitments by a named person: "Bob will send the slides by Friday."
//   - first-person commitments, attributed to the speaker: "I will …" / "I'll …" → "Alice will …"
//   - requests to a named person: "Bob, can you send the deck?" → "Bob to send the deck."

import type { AiAnalyzer, AnalysisRequest, MeetingInsights } from './types.ts';

const MAX_SUMMARY_SENTENCES = 3;
const MAX_ACTION_ITEMS = 50;

export class BuiltinAnalyzer implements AiAnalyzer {
  readonly id = 'builtin';

  async analyze(request: AnalysisRequest): Promise<MeetingInsights> {
    return analyzeTranscript(request);
  }
}

interface Sentence {
  text: string;
  speaker: string | null;
  index: number;
}

/**
 * What the analyser reads: a stored transcript's segments (always labelled), or the lines of a chat prompt (the
 * development media server's `/v1/chat/completions`), which may name no speaker.
 */
export interface SpokenText {
  text: string;
  speaker: string | null;
}

export function analyzeTranscript(input: { text: string; segments: SpokenText[] }): MeetingInsights {
  const sentences = sentencesOf(input);
  return { summary: summarize(sentences), actionItems: extractActionItems(sentences) };
}

function sentencesOf(input: { text: string; segments: SpokenText[] }): Sentence[] {
  const sources = input.segments.length > 0 ? input.segments : [{ text: input.text, speaker: null }];
  const sentences: Sentence[] = [];
  for (const source of sources) {
    for (const text of splitSentences(source.text)) {
      sentences.push({ text, speaker: source.speaker, index: sentences.length });
    }
  }
  return sentences;
}

function splitSentences(text: string): string[] {
  return text
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+(?=[A-Z0-9"'“])/)
    .map((sentence) => sentence.trim())
    .filter(Boolean);
}

// --- summary -------------------------------------------------------------------------------------------------------

const STOPWORDS = new Set(
  `a about above after again all am an and any are as at be because been before being below between both but by can
  could did do does doing down during each few for from further had has have having he her here hers herself him
  himself his how i i'm i'll if in into is it it's its itself just let's me more most my myself no nor not now of off on
  once only or other our ours ourselves out over own same she should so some such than that that's the their theirs
  them themselves then there these they this those through to too under until up very was we we're were what when where
  which while who whom why will with would you your yours yourself yourselves yes yeah okay ok thanks thank good great
  morning everyone everybody hi hello also well really sounds one get got go going think know like`.split(/\s+/),
);

function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []).filter((word) => word.length > 2 && !STOPWORDS.has(word));
}

function summarize(sentences: Sentence[]): string {
  if (sentences.length === 0) return '';
  const frequency = new Map<string, number>();
  for (const sentence of sentences) {
    for (const word of new Set(contentWords(sentence.text))) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  }
  const scored = sentences.map((sentence) => {
    const words = contentWords(sentence.text);
    // Words said only once carry no theme; a sentence with no recurring word is small talk.
    const weight = words.reduce((sum, word) => sum + ((frequency.get(word) ?? 1) - 1), 0);
    const density = words.length === 0 ? 0 : weight / Math.sqrt(words.length);
    const opening = sentence.index < 2 ? 0.25 : 0;
    const commitment = actionItemOf(sentence) ? 0.5 : 0;
    return { sentence, score: density + opening + commitment };
  });
  const count = Math.min(MAX_SUMMARY_SENTENCES, Math.max(1, Math.ceil(sentences.length / 3)));
  const chosen = [...scored]
    .sort((a, b) => b.score - a.score || a.sentence.index - b.sentence.index)
    .slice(0, count)
    .map((entry) => entry.sentence)
    .sort((a, b) => a.index - b.index);
  return chosen.map((sentence) => sentence.text).join(' ');
}

// --- action items --------------------------------------------------------------------------------------------------

/** Capitalised words that start a "X will …" sentence without naming a person. */
const NOT_NAMES = new Set(
  `I We You He She It They This That These Those There Here What Who Which When Where Why How The A An And But So Or
  Then Also Everyone Everybody Someone Somebody Nobody Team Monday Tuesday Wednesday Thursday Friday Saturday Sunday
  January February March April May June July August September October November December Today Tomorrow Yesterday
  Next Last Each Every All Both Either Neither Nothing Something Anything Maybe Perhaps Hopefully Sure Great Good
  Okay Ok Yes No Thanks Well Now Let`.split(/\s+/),
);

const NAME = String.raw`([A-Z][\p{L}'-]+(?: [A-Z][\p{L}'-]+)?)`;
/** Openers dropped before the rules look at a sentence ("And Bob will …", "To recap, Bob will …"). */
const OPENER = /^(?:(?:and|so|also|then|okay|ok|well|right|alright|anyway|finally|to recap|to sum up|in summary),?\s+)+/i;
const EXPLICIT = /\b(?:action items?|to[- ]?dos?|follow[- ]?ups?)\s*[:\-–]\s*(.+)$/iu;
const COMMITMENT = new RegExp(String.raw`(?:^|[,;:]\s*|\b(?:and|so|then|recap|also)\s+)${NAME} (will|is going to|shall) (.+)$`, 'u');
const FIRST_PERSON = /(?:^|[,;:]\s*|\b(?:and|so|then|okay|ok|sure|yes)\s+)(?:I will|I'll|I am going to|I'm going to) (.+)$/iu;
const REQUEST = new RegExp(String.raw`^(?:(?:and|so|also|okay|ok)\s+)?${NAME}, (?:can|could|would|will) you(?: please)? (.+?)[?.!]?$`, 'u');
const REQUEST_PLEASE = new RegExp(String.raw`^(?:(?:and|so|also|okay|ok)\s+)?${NAME}, please (.+?)[.!]?$`, 'u');

function extractActionItems(sentences: Sentence[]): string[] {
  const items: string[] = [];
  const seen = new Set<string>();
  for (const sentence of sentences) {
    const item = actionItemOf(sentence);
    if (!item) continue;
    const key = item.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
    if (seen.has(key)) continue;
    seen.add(key);
    items.push(item);
    if (items.length >= MAX_ACTION_ITEMS) break;
  }
  return items;
}

function actionItemOf(sentence: Sentence): string | undefined {
  const text = sentence.text.replace(OPENER, '');
  let match: RegExpExecArray | null;
  if ((match = EXPLICIT.exec(text))) return asSentence(match[1]);
  if ((match = REQUEST.exec(text)) || (match = REQUEST_PLEASE.exec(text))) {
    if (isName(match[1])) return asSentence(`${match[1]} to ${match[2]}`);
  }
  if ((match = COMMITMENT.exec(text)) && isName(match[1])) return asSentence(`${match[1]} ${match[2]} ${match[3]}`);
  if ((match = FIRST_PERSON.exec(text))) {
    const who = sentence.speaker ?? 'The speaker';
    return asSentence(`${who} will ${match[1]}`);
  }
  return undefined;
}

function isName(candidate: string): boolean {
  return !candidate.split(' ').some((word) => NOT_NAMES.has(word));
}

function asSentence(text: string): string {
  const trimmed = text.trim().replace(/[?!,;:]+$/, '');
  const capitalised = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}
