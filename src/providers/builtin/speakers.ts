// Who says each turn, for the builtin analyser (docs/decisions.md §9: owners only when the meeting names them, never a
// recogniser's label). A diarizing recogniser tells speakers apart and a self-introduction ties a label to a name
// (names.ts `speakerNames`). A recogniser that does not diarize gives one label for everyone; then only what is said
// tells who speaks, and only next to where it is said:
//   - "I'm Rosa", "Irene here": this turn is Rosa's;
//   - a turn that addresses someone ("Raj, can you …?", "Great news, Frank, when …?", "Thanks, Omar.") is not theirs,
//     and the next turn is the one addressed answering;
//   - an answer that names whom it answers ("Yes, Wednesday is doable, Maya.") says the turn before was Maya's.
// Two such clues that disagree about a turn leave it unknown; nothing is guessed from turns taking alternately.
import { TITLE, introducedName, isTitle, isVocativeName } from './names.ts';
import type { Turn } from './text.ts';

const W = String.raw`[\p{L}][\p{L}'-]*`;
/** One word, after an optional title ("Dr. Patel"): a name said to someone is rarely two words. */
const NAME = String.raw`((?:${TITLE}\s+)?${W})`;
/** Words that may come before a name said to someone at the start of a turn. */
const OPENERS = String.raw`(?:(?:hi|hey|hello|morning|good morning|good afternoon|thanks|thank you|sorry|okay|ok|so|great|good|yes|yeah|right|and|then|well|alright|all right|perfect|great news)[,.!]?\s+)`;
/** "Raj, can you …", "okay Jake, let's …", "thanks Omar": a name set off at the start of what is said. */
const LEADING = new RegExp(String.raw`^${OPENERS}{0,3}${NAME}\s*[,!?]`, 'iu');
/** "thanks Omar.", "sorry Gwen": a greeting or thanks with a name and nothing else. */
const COURTESY = new RegExp(String.raw`\b(?:thanks|thank you|sorry|bye|hi|hey|hello|morning|cheers)\s*,?\s+${NAME}\s*(?:[.!?,]|$)`, 'iu');
/** "…, Maya." at the end of a sentence, or "Great news, Frank, when …" after at most three words. */
const TRAILING = new RegExp(String.raw`,\s*${NAME}\s*[.!?]?\s*$`, 'u');
const EARLY = new RegExp(String.raw`^(?:[\p{L}'-]+\s+){0,2}[\p{L}'-]+,\s*${NAME}\s*,`, 'u');
/** An answer: it names whom it answers. */
const ANSWER = /^(?:yes|yeah|yep|yup|sure|ok|okay|of course|absolutely|will do|on it|got it|understood|thanks|thank you|no|nope|great|perfect|sounds good|fine|right|alright|all right)\b/i;

/** The person a turn speaks to by name, if it does (a name set off by commas, after a greeting, or at its end). */
export function addresseeOf(text: string): string | undefined {
  return addressOf(text)?.name;
}

/** How a turn names whom it speaks to: first ("Raj, can you …", "hi Sean"), in thanks ("thanks Omar"), or later. */
function addressOf(text: string): { name: string; how: 'first' | 'thanks' | 'later' } | undefined {
  const bare = text.trim();
  for (const pattern of [LEADING, COURTESY, EARLY, TRAILING]) {
    const match = pattern.exec(bare);
    if (!match) continue;
    const name = personal(match[1], pattern === LEADING && match.index === 0 && match[0].startsWith(match[1]));
    if (!name) continue;
    const thanks = /\b(?:thanks|thank you|sorry|cheers|bye)\b/i.test(match[0]);
    return { name, how: pattern === LEADING ? (thanks ? 'thanks' : 'first') : pattern === COURTESY ? (thanks ? 'thanks' : 'first') : 'later' };
  }
  return undefined;
}

/** A matched span as a person's name ("Dr. Patel" → "Dr. Patel"), or undefined; `initial`: it starts what is said. */
function personal(span: string, initial: boolean): string | undefined {
  const words = span.trim().split(/\s+/);
  const title = words.length > 1 && isTitle(words[0]) ? words[0] : undefined;
  const name = words[words.length - 1];
  if (words.length > 2 || (words.length === 2 && !title) || !isVocativeName(name, initial && !title)) return undefined;
  return [title, name].filter(Boolean).join(' ').replace(/'s$/i, '');
}

/**
 * Turn index → the name of who says it, where the meeting makes it clear. With speakers told apart, a label's name
 * (`labelNames`) holds for all its turns; with one label for everyone, only the clues above, turn by turn.
 */
export function turnSpeakers(turns: Turn[], labelNames: Map<string, string>, diarized: boolean): Map<number, string> {
  const named = new Map<number, string>();
  if (diarized) {
    for (const turn of turns) {
      const name = turn.speaker === null ? undefined : labelNames.get(turn.speaker);
      if (name) named.set(turn.index, name);
    }
    return named;
  }
  const claims = new Map<number, Set<string>>();
  const notThem = new Map<number, Set<string>>();
  const add = (map: Map<number, Set<string>>, index: number, name: string) => {
    if (index < 0 || index >= turns.length) return;
    const set = map.get(index) ?? new Set<string>();
    set.add(name.toLowerCase());
    map.set(index, set);
  };
  const display = new Map<string, string>();
  for (const turn of turns) {
    const text = turn.clauses.join(' ');
    const introduced = introducedName(text);
    if (introduced) {
      add(claims, turn.index, introduced);
      display.set(introduced.toLowerCase(), introduced);
    }
    const address = addressOf(text) ?? addressOf(turn.clauses[turn.clauses.length - 1] ?? '');
    const addressed = address?.name;
    if (!address || !addressed || addressed.toLowerCase() === introduced?.toLowerCase()) continue;
    display.set(addressed.toLowerCase(), addressed);
    add(notThem, turn.index, addressed);
    // Asked or called on by name, they answer next; thanked or answered by name, they spoke before.
    const asks = /\?\s*$/.test(text) || turn.clauses.some((clause) => /\?\s*$/.test(clause));
    const answers = ANSWER.test(text.trim()) || address.how === 'thanks';
    // An answer that ends on their name ("Yes, Wednesday is doable, Maya.") gives them the floor back.
    if (asks || (address.how === 'first' && !answers) || (answers && address.how === 'later')) add(claims, turn.index + 1, addressed);
    if (answers) add(claims, turn.index - 1, addressed);
  }
  for (const [index, names] of claims) {
    const left = [...names].filter((name) => !notThem.get(index)?.has(name));
    if (names.size === 1 && left.length === 1) named.set(index, display.get(left[0]) ?? left[0]);
  }
  return named;
}
