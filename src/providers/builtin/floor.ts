// Who holds the floor in a room of two, for the builtin analyser when the recogniser gives one label for everyone
// (speakers.ts). The clues that name a turn's speaker ("Great news, Frank, …" is not Frank's) are few and far apart;
// between them, two people mostly take turns, and how a turn opens says how likely it is that the other person
// speaks: after a question almost always, at an answer ("Yes, …", "Sure") or a promise ("I'll …") usually, at a
// fragment of a few words ("Please.", "I suppose.") seldom, since a recogniser cuts one person's sentences apart too.
// Each turn gets the chance that each of the two says it (forward–backward over the turns, the clues as evidence), and
// a speaker only where one of the two is clearly likelier: far from any clue, a turn stays unknown.
import type { Turn } from './text.ts';

/** How sure a clue from what is said makes us of a turn's speaker. */
const CLUE_WEIGHT = 0.9;
/**
 * How sure the turns' order must make us before a turn is given a speaker. Low on purpose: in a room of two the owner
 * of a promise is one of the two, and the likelier of them is the better answer than none.
 */
const CONFIDENT = 0.6;

const ANSWER_OPENING = /^(?:yes|yeah|yep|yup|sure|ok|okay|of course|absolutely|will do|on it|got it|understood|thanks|thank you|no|nope|great|perfect|sounds good|fine|right|alright|all right|good|me|i can|i think so|not really|exactly|enjoy)\b/i;
const PROMISE_OPENING = /^(?:i'll|i will|i can|i'm going to)\b/i;

/** A turn that asks the other person for something: "can you …", "you should …", "I need …", "please …". */
const ASKS = /\b(?:(?:can|could|would|will) you|you(?:'ll| will)? (?:should|need to|have to|must)|i (?:need|want|'d like)|please)\b/i;

/** The chance that the speaker changes between `before` and `turn`, from how they end and open. */
export function changeChance(before: Turn, turn: Turn): number {
  const last = before.clauses[before.clauses.length - 1] ?? '';
  const said = before.clauses.join(' ');
  const text = turn.clauses.join(' ').trim();
  if (/\?\s*$/.test(last)) return 0.95;
  // Asked for something, the other person answers or promises it.
  const answers = ANSWER_OPENING.test(text) || PROMISE_OPENING.test(text);
  if (answers && (ASKS.test(said) || echoes(said, text))) return 0.95;
  if (ANSWER_OPENING.test(text)) return 0.9;
  if (PROMISE_OPENING.test(text)) return 0.8;
  if (text.split(/\s+/).length <= 3 && !/\?\s*$/.test(text)) return 0.25;
  return 0.75;
}

/**
 * Turn index → which of the two people (0 or 1) says it, for the turns the clues and the order make clear; `clues`:
 * turn index → the person a clue gives it to. Turns already in `clues` keep their clue.
 */
export function floorHolders(turns: Turn[], clues: Map<number, 0 | 1>): Map<number, 0 | 1> {
  const n = turns.length;
  const evidence = (i: number, who: 0 | 1) => {
    const clue = clues.get(i);
    return clue === undefined ? 0.5 : clue === who ? CLUE_WEIGHT : 1 - CLUE_WEIGHT;
  };
  const change = turns.map((turn, i) => (i === 0 ? 0.5 : changeChance(turns[i - 1], turn)));
  // forward[i][k]: the chance of the clues up to turn i with person k saying turn i (normalised at each step).
  const forward: Array<[number, number]> = [];
  for (let i = 0; i < n; i++) {
    const before = forward[i - 1] ?? [0.5, 0.5];
    const into = (k: 0 | 1) => (i === 0 ? 0.5 : before[k] * (1 - change[i]) + before[1 - k] * change[i]);
    forward.push(normalised([into(0) * evidence(i, 0), into(1) * evidence(i, 1)]));
  }
  const backward: Array<[number, number]> = new Array(n);
  backward[n - 1] = [1, 1];
  for (let i = n - 2; i >= 0; i--) {
    const after = backward[i + 1];
    const from = (k: 0 | 1) =>
      (1 - change[i + 1]) * evidence(i + 1, k) * after[k] + change[i + 1] * evidence(i + 1, (1 - k) as 0 | 1) * after[1 - k];
    backward[i] = normalised([from(0), from(1)]);
  }
  const holders = new Map<number, 0 | 1>();
  for (let i = 0; i < n; i++) {
    const clue = clues.get(i);
    if (clue !== undefined) {
      holders.set(i, clue);
      continue;
    }
    const [first, second] = normalised([forward[i][0] * backward[i][0], forward[i][1] * backward[i][1]]);
    if (first >= CONFIDENT) holders.set(i, 0);
    else if (second >= CONFIDENT) holders.set(i, 1);
  }
  return holders;
}

/** A promise with the verb of what was just said ("Call the client." → "I'll call them."): an answer to it. */
function echoes(said: string, promise: string): boolean {
  const verb = /^(?:i'll|i will|i can|i'm going to)\s+(\p{L}+)/iu.exec(promise)?.[1]?.toLowerCase();
  return verb !== undefined && verb.length > 2 && !/^(?:be|do|have|get|see|try)$/.test(verb) && new RegExp(`\\b${verb}\\b`, 'i').test(said);
}

function normalised([a, b]: [number, number]): [number, number] {
  const sum = a + b;
  return sum === 0 ? [0.5, 0.5] : [a / sum, b / sum];
}
