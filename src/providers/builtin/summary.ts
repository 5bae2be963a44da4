// The builtin analyser's summary (docs/decisions.md §9): 1–3 sentences of the meeting itself, its topics and decisions, in
// spoken order; never a greeting, a farewell, procedure ("called to order", "any questions") or small talk.
//
// Which sentences: each clause the recogniser gave, stripped of fillers, is scored by the meeting's recurring content
// words it holds (a word said in one sentence only carries no theme), per word so long sentences do not win by
// length, plus a bonus for decisions ("we decided to …", "the board voted to …") and for sentences that announce a
// topic ("first item …", "today's lecture is on …"). Sentences are then taken best first, each one's score reduced by
// the words it shares with those already taken, so that a meeting of two topics gets both.
import { introducedName } from './names.ts';
import { isQuestion, type Turn } from './text.ts';

/** A summary is one to three sentences (docs/decisions.md §9), whichever analyser writes it. */
export const MAX_SUMMARY_SENTENCES = 3;

const STOPWORDS = new Set(
  `a about above after again all am an and any are as at be because been before being below between both but by can
  could did do does doing down during each few for from further had has have having he her here hers herself him
  himself his how i i'm i'll if in into is it it's its itself just let's me more most my myself no nor not now of off on
  once only or other our ours ourselves out over own same she should so some such than that that's the their theirs
  them themselves then there these they this those through to too under until up very was we we're were what when where
  which while who whom why will with would you your yours yourself yourselves yes yeah okay ok thanks thank good great
  morning everyone everybody hi hello also well really sounds one get got go going think know like um uh right
  alright need needs want said says today tomorrow yesterday week next last first second item cool nice sure please`.split(/\s+/),
);

/** Greetings, farewells, meeting procedure and small talk: a sentence holding one is never in a summary. */
const SMALL_TALK = new RegExp(
  [
    String.raw`\b(?:hi|hello|hey|welcome|thanks|thank you|bye|goodbye|cheers|take care|drive safe|see you|talk (?:soon|later|to you))\b`,
    String.raw`\bgood (?:morning|afternoon|evening|night|luck)\b`,
    String.raw`\bhave a (?:good|great|nice)\b`,
    String.raw`\bhow (?:are|was|is) (?:you|everyone|everybody|your|the)\b`,
    String.raw`\b(?:can|could) (?:you|everyone|everybody) hear\b|\bloud and clear\b`,
    String.raw`\bfor (?:joining|coming|taking the call|hopping on)\b|\bhopping on\b`,
    String.raw`\bcalled to order\b|\badjourned\b|\bis there a motion\b|\ball in favou?r\b|\bany (?:other business|questions)\b`,
    String.raw`\b(?:that's|thats) (?:it|all)\b|\byou're next\b|\byou had a question\b|\bsettle down\b|\bgo sell\b`,
    String.raw`\bbe (?:honest|quick|brief)\b|\bnot going to lie\b|\bweather\b|\bhiking\b`,
  ].join('|'),
  'iu',
);
/** Openers that say nothing about the meeting ("ok let's get started", "um so", "good evening,"). */
const OPENER = /^(?:(?:hi|hello|hey|good (?:morning|afternoon|evening))(?: (?:everyone|everybody|all|folks|team|there))?(?=[\s,.!])[,.!]?\s*|(?:um+|uh+|ok|okay|so|alright|all right|right|well|and|also|now|next|yeah|yes|no|great|good|cool)(?=[\s,.])[,.]?\s*|let's (?:get started|start|begin)(?: with)?(?=[\s,.])[,.]?\s*)+/i;
/** Thanks at the end of a sentence that has more to say ("gala planning call thanks for hopping on"). */
const CLOSING_THANKS = /[,.]?\s+(?:thanks|thank you)(?: (?:all|everyone|everybody|so much))?(?: for (?:joining|coming|hopping on|taking the call))?[.!]?$/i;
const HEDGED = /\b(?:probably|maybe|might|perhaps|possibly|i guess|i think|would have|if you were)\b|^(?:if|unless)\b/i;
/** First-person talk is the speaker's own business more often than the meeting's. */
const PERSONAL = /\b(?:i|i'll|i'm|i've|my|me)\b/i;
/** Requests and commitments are the action items' business; the summary is about topics and decisions. */
const TASKING = /\b(?:please|can you|could you|will you|will|'ll|let's have|assign)\b/i;
const DECISION = /\b(?:we (?:agreed|decided|voted|chose)|(?:board|council|committee) (?:voted|agreed|decided)|motion carries|(?:was|were|is|are) approved|decided (?:to|not to)|going with)\b/i;
const TOPIC = /\b(?:first item|second item|item (?:one|two|three|\d+)|next (?:item|topic)|(?:first|second|next) topic|agenda|today we're|tonight we're|today's (?:lecture|topic|class)|the (?:main )?goal is|the question is|(?:is|was) about)\b|^(?:first|next|then|second|finally)\b/i;

interface Candidate {
  text: string;
  order: number;
  words: string[];
  score: number;
}

export function summarize(turns: Turn[]): string {
  const sentences = turns.flatMap((turn) => turn.clauses);
  // What the meeting keeps coming back to, counted over everything said (questions included).
  const frequency = new Map<string, number>();
  for (const sentence of sentences) for (const word of new Set(contentWords(sentence))) frequency.set(word, (frequency.get(word) ?? 0) + 1);

  const candidates = sentences
    .map((clause, order) => ({ text: clause.replace(OPENER, '').replace(CLOSING_THANKS, '').trim(), clause, order }))
    .filter(({ text, clause }) => !SMALL_TALK.test(text) && !isQuestion(clause) && !HEDGED.test(text) && !introducedName(text))
    .map(({ text, clause, order }) => ({ text, order, words: contentWords(text), topic: TOPIC.test(stripOpeners(clause)) }))
    .filter((candidate) => candidate.words.length >= (candidate.topic ? 2 : 3));
  if (candidates.length === 0) return '';

  const scored: Candidate[] = candidates.map((candidate, rank) => {
    const recurring = candidate.words.reduce((sum, word) => sum + ((frequency.get(word) ?? 1) - 1), 0);
    const density = recurring / Math.sqrt(candidate.words.length);
    // The first thing said that is not small talk usually names the meeting ("handover for ward three").
    const bonus = (DECISION.test(candidate.text) ? 1.5 : 0) + (candidate.topic ? 1 : 0) + (rank === 0 ? 1 : 0);
    const weight = (PERSONAL.test(candidate.text) ? 0.5 : 1) * (TASKING.test(candidate.text) ? 0.6 : 1);
    return { ...candidate, score: (density + bonus + 0.01) * weight };
  });

  const wanted = Math.min(MAX_SUMMARY_SENTENCES, scored.length);
  const chosen: Candidate[] = [];
  const covered = new Set<string>();
  while (chosen.length < wanted) {
    let best: { candidate: Candidate; value: number } | undefined;
    for (const candidate of scored) {
      if (chosen.includes(candidate)) continue;
      const unique = new Set(candidate.words);
      const fresh = [...unique].filter((word) => !covered.has(word)).length / unique.size;
      const value = candidate.score * fresh;
      if (!best || value > best.value) best = { candidate, value };
    }
    if (!best || best.value <= 0) break;
    chosen.push(best.candidate);
    for (const word of best.candidate.words) covered.add(word);
  }
  return chosen
    .sort((a, b) => a.order - b.order)
    .map((candidate) => asSentence(candidate.text))
    .join(' ');
}

/** Fillers only ("ok so next the parking study" → "next the parking study"): what announces a topic stays. */
function stripOpeners(clause: string): string {
  return clause.replace(/^(?:(?:um+|uh+|ok|okay|so|alright|all right|right|well|and|also|now)(?=[\s,.])[,.]?\s*)+/i, '');
}

function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [])
    .filter((word) => word.length > 2 && !STOPWORDS.has(word))
    .map(stem);
}

/** Enough of a stem for counting recurring words: "forms"/"form", "reminders"/"reminder". */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

function asSentence(text: string): string {
  const trimmed = text.trim().replace(/[,;:]+$/, '');
  const capitalised = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}
