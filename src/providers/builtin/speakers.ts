// Who says each turn, for the builtin analyser (docs/decisions.md §9: owners only when the meeting names them, never a
// recogniser's label). With speakers told apart (a diarizing recogniser, or the transcription step by voice), a label
// is tied to a name by a self-introduction (names.ts `speakerNames`) or by the clues below when they agree on its turns
// (`labelled`). A recogniser that does not diarize gives one label for everyone; then only what is said tells who
// speaks, and only next to where it is said:
//   - "I'm Rosa", "Irene here": this turn is Rosa's;
//   - a turn that addresses someone ("Raj, can you …?", "Great news, Frank, when …?", "Thanks, Omar.") is not theirs,
//     and the next turn is the one addressed answering;
//   - an answer that names whom it answers ("Yes, Wednesday is doable, Maya.") says the turn before was Maya's.
// Two such clues that disagree about a turn leave it unknown. When the room's participants are known (their display
// names), a name heard close to one of them is that participant ("Lewis" for Luis), and with exactly two people in
// the room, a turn that speaks to one is the other's, and between such clues the two take turns (floor.ts). Only
// people the meeting names own anything: a participant whose name is never said is nobody's answer (a name the
// recogniser wrote as it heard it, capitalised, counts as said: sounds-like.ts).
import { TITLE, introducedName, isNeverAName, isTitle, isVocativeName } from './names.ts';
import { soundsLike } from './sounds-like.ts';
import { floorHolders } from './floor.ts';
import type { Turn } from './text.ts';

const W = String.raw`[\p{L}][\p{L}'-]*`;
/** One word, after an optional title ("Dr. Patel"): a name said to someone is rarely two words. */
const NAME = String.raw`((?:${TITLE}\s+)?${W})`;
/** Words that may come before a name said to someone at the start of a turn. */
const OPENERS = String.raw`(?:(?:hi|hey|hello|morning|good morning|afternoon|good afternoon|evening|good evening|thanks|thank you|sorry|okay|ok|so|great|good|yes|yeah|right|and|then|well|alright|all right|perfect|great news)[,.!]?\s+)`;
/** "Raj, can you …", "okay Jake, let's …", "thanks Omar": a name set off at the start of what is said. */
const LEADING = new RegExp(String.raw`^${OPENERS}{0,3}${NAME}\s*[,!?]`, 'iu');
/** "thanks Omar.", "sorry Gwen": a greeting or thanks with a name and nothing else. */
const COURTESY = new RegExp(String.raw`\b(?:thanks|thank you|sorry|bye|hi|hey|hello|morning|evening|cheers)\s*,?\s+${NAME}\s*(?:[.!?,]|$)`, 'iu');
/**
 * "Thanks. Grace.": thanks and a name the recogniser cut into two sentences; taken only for someone in the room, since
 * "Thanks. Bye." looks the same.
 */
const COURTESY_APART = new RegExp(String.raw`\b(?:thanks|thank you|sorry|bye|cheers)\s*[.!]\s+${NAME}\s*[.!]?\s*$`, 'iu');
/** "…, Maya." at the end of a sentence, or "Great news, Frank, when …" after at most three words. */
const TRAILING = new RegExp(String.raw`,\s*${NAME}\s*[.!?]?\s*$`, 'iu');
const EARLY = new RegExp(String.raw`^(?:[\p{L}'-]+\s+){0,2}[\p{L}'-]+,\s*${NAME}\s*,`, 'iu');
/** An answer: it names whom it answers. */
const ANSWER = /^(?:yes|yeah|yep|yup|sure|ok|okay|of course|absolutely|will do|on it|got it|understood|thanks|thank you|no|nope|great|perfect|sounds good|fine|right|alright|all right)\b/i;

/** The person a turn speaks to by name, if it does (a name set off by commas, after a greeting, or at its end). */
export function addresseeOf(text: string): string | undefined {
  return addressOf(text)?.name;
}

/**
 * How a turn names whom it speaks to: first ("Raj, can you …", "hi Sean"), in thanks ("thanks Omar"), or later. With
 * the room known, a name of someone in it wins over a word that only looks like a name ("Morgan, Dr. Patel." is
 * "Morning, Dr. Patel." misheard).
 */
function addressOf(text: string, room?: Room): { name: string; how: 'first' | 'thanks' | 'later' } | undefined {
  const bare = text.trim();
  let first: { name: string; how: 'first' | 'thanks' | 'later' } | undefined;
  for (const pattern of [LEADING, COURTESY, EARLY, TRAILING]) {
    const match = pattern.exec(bare);
    if (!match) continue;
    const name = personal(match[1], pattern === LEADING && match.index === 0 && match[0].startsWith(match[1])) ?? misheard(match[1], room);
    if (!name) continue;
    const thanks = /\b(?:thanks|thank you|sorry|cheers|bye)\b/i.test(match[0]);
    const address = { name, how: pattern === LEADING ? (thanks ? 'thanks' : 'first') : pattern === COURTESY ? (thanks ? 'thanks' : 'first') : 'later' } as const;
    if (!room || room.people.length === 0 || inRoom(name, room)) return address;
    first ??= address;
  }
  const apart = room && room.people.length > 0 ? COURTESY_APART.exec(bare) : null;
  const thanked = apart ? personal(apart[1], false) : undefined;
  if (room && thanked && inRoom(thanked, room)) return { name: thanked, how: 'thanks' };
  return first;
}

/**
 * Whom a turn speaks to: in all it says, in one of its sentences, or in two running ones (a title's full stop cuts
 * "Morning, Dr. Patel." in two); someone in the room first.
 */
function addressIn(turn: Turn, room: Room): ReturnType<typeof addressOf> {
  const pairs = turn.clauses.slice(1).map((clause, at) => `${turn.clauses[at]} ${clause}`);
  const found = [turn.clauses.join(' '), ...turn.clauses, ...pairs].map((text) => addressOf(text, room)).filter((address) => address !== undefined);
  return found.find((address) => room.people.length > 0 && inRoom(address.name, room)) ?? found[0];
}

/** Whether a name said to someone is one of the room's people (as roomName reads it). */
function inRoom(name: string, room: Room): boolean {
  const last = personOf(roomName(name, room, { said: true }));
  return room.people.some((person) => person.includes(last));
}

/**
 * With the room known, a word said where a name is said that the lexicon does not take for a name (", isha, you're
 * okay to …", lower case) but that sounds like one of the room's names and is close to it in letters: that name,
 * misheard.
 */
function misheard(span: string, room: Room | undefined): string | undefined {
  if (!room || room.people.length === 0) return undefined;
  const word = span.trim().split(/\s+/).pop()!.replace(/'s$/i, '');
  // roomName leaves a word shorter than three letters as it is.
  if (isNeverAName(word) || /\d|_/.test(word)) return undefined;
  const name = roomName(word, room, { said: true });
  return name !== word && soundsLike(word, name) ? name : undefined;
}

/** A matched span as a person's name ("Dr. Patel" → "Dr. Patel"), or undefined; `initial`: it starts what is said. */
function personal(span: string, initial: boolean): string | undefined {
  const words = span.trim().split(/\s+/);
  const title = words.length > 1 && isTitle(words[0]) ? words[0] : undefined;
  const name = words[words.length - 1];
  if (words.length > 2 || (words.length === 2 && !title) || !isVocativeName(name, initial && !title)) return undefined;
  return [title, name].filter(Boolean).join(' ').replace(/'s$/i, '');
}

/** The people in the room: each participant's personal names (a title such as "Doctor" left out), as said. */
export interface Room {
  /** Lower-case name word → how it is written ("luis" → "Luis"). */
  names: Map<string, string>;
  /** Each participant's name words, for telling two people apart. */
  people: string[][];
}

const TITLE_WORDS = new RegExp(String.raw`^${TITLE}$`, 'i');

export function participantNames(displayNames: readonly string[]): Room {
  const names = new Map<string, string>();
  const people: string[][] = [];
  for (const display of displayNames) {
    const words = display.split(/\s+/).filter((word) => word && !TITLE_WORDS.test(word) && !/^(?:chef|nurse|coach|chair)$/i.test(word));
    for (const word of words) names.set(word.toLowerCase(), word);
    if (words.length > 0) people.push(words.map((word) => word.toLowerCase()));
  }
  return { names, people };
}

/**
 * A name as the room knows it: the participant's own spelling when the recogniser's is the same or close ("Lewis" →
 * "Luis", "Tarik" → "Tariq", "Lara" → "Zara"): at most half its letters apart (two for a name of four letters or
 * fewer), and nearer than any other participant. A name far from everyone's is someone outside the room ("ask Mary").
 * `said`: the name is said to someone ("Rina, can you …"), and people speak to whoever is in the room, so a name heard
 * further off is still theirs: up to three fifths of its letters apart ("Zorna" for Jonas, "Ramen" for Ravi).
 */
export function roomName(name: string, room: Room, options: { said?: boolean } = {}): string {
  const words = name.split(/\s+/);
  const last = words[words.length - 1];
  const exact = room.names.get(last.toLowerCase());
  if (exact) return [...words.slice(0, -1), exact].join(' ');
  if (last.length < 3) return name;
  const heard = last.toLowerCase();
  const near = [...room.names.entries()]
    .map(([word, written]) => ({ written, apart: editDistance(word, heard), longer: Math.max(word.length, heard.length) }))
    .filter(({ apart, longer }) => apart <= Math.max(2, options.said ? Math.ceil((longer * 3) / 5) : Math.floor(longer / 2)) && apart < longer - 1)
    .sort((a, b) => a.apart - b.apart);
  const [best, next] = near;
  return best && (!next || next.apart > best.apart) ? [...words.slice(0, -1), best.written].join(' ') : name;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

/** The person of a two-person room who is not `name`, if the room has two people and `name` is one of them. */
function otherOf(name: string, room: Room): string | undefined {
  if (room.people.length !== 2) return undefined;
  const at = room.people.findIndex((words) => words.includes(personOf(name)));
  if (at === -1) return undefined;
  return writtenName(room.people[1 - at], room);
}

/** How the room writes a person (their last name word, as in the participant's display name). */
function writtenName(words: readonly string[], room: Room): string {
  const last = words[words.length - 1];
  return room.names.get(last) ?? last;
}

/**
 * Turn index → the name of who says it, where the meeting makes it clear. With speakers told apart, a label's name
 * (`labelNames`) holds for all its turns; with one label for everyone, only the clues above, turn by turn.
 */
export function turnSpeakers(
  turns: Turn[],
  labelNames: Map<string, string>,
  diarized: boolean,
  room: Room = { names: new Map(), people: [] },
): Map<number, string> {
  return whoIsWho(turns, labelNames, diarized, room).speakers;
}

/**
 * Who says each turn (turnSpeakers) and, without diarization, whom each speaks to (turnListeners): the one who says a
 * turn tells whom it speaks to in a room of two, even when their own name is never said and so owns nothing.
 */
export function whoIsWho(
  turns: Turn[],
  labelNames: Map<string, string>,
  diarized: boolean,
  room: Room = { names: new Map(), people: [] },
): { speakers: Map<number, string>; listeners: Map<number, string> } {
  const named = new Map<number, string>();
  const claims = new Map<number, Set<string>>();
  const notThem = new Map<number, Set<string>>();
  const add = (map: Map<number, Set<string>>, index: number, name: string) => {
    if (index < 0 || index >= turns.length) return;
    const set = map.get(index) ?? new Set<string>();
    set.add(name.toLowerCase());
    map.set(index, set);
  };
  const display = new Map<string, string>();
  /** Names the meeting says (to someone, or of oneself), as the room knows them. */
  const heard = new Set<string>();
  for (const turn of turns) {
    const text = turn.clauses.join(' ');
    const heardIntro = introducedName(text);
    const introduced = heardIntro === undefined ? undefined : roomName(heardIntro, room);
    if (introduced) {
      add(claims, turn.index, introduced);
      display.set(introduced.toLowerCase(), introduced);
      heard.add(introduced.toLowerCase());
    }
    const address = addressIn(turn, room);
    const addressed = address === undefined ? undefined : roomName(address.name, room, { said: true });
    if (!address || !addressed || addressed.toLowerCase() === introduced?.toLowerCase()) continue;
    display.set(addressed.toLowerCase(), addressed);
    heard.add(addressed.toLowerCase());
    add(notThem, turn.index, addressed);
    // Asked or called on by name, they answer next; thanked or answered by name, they spoke before.
    const asks = /\?\s*$/.test(text) || turn.clauses.some((clause) => /\?\s*$/.test(clause));
    // An answer names whom it answers in the same sentence ("Great, Rosa.", or "Great. Rosa." as a recogniser cuts
    // it); "Great. Jun?" calls on Jun instead.
    const at = turn.clauses.findIndex((clause) => clause.toLowerCase().includes(personOf(address.name)));
    const nameAlone = at > 0 && /^\s*[\p{L}'-]+\s*[.!]?\s*$/u.test(turn.clauses[at]);
    const sentence = at === -1 ? text : nameAlone ? `${turn.clauses[at - 1]} ${turn.clauses[at]}` : turn.clauses[at];
    const answers = ANSWER.test(sentence.trim()) || address.how === 'thanks';
    // An answer that ends on their name ("Yes, Wednesday is doable, Maya.") gives them the floor back.
    if (asks || (address.how === 'first' && !answers) || (answers && address.how === 'later')) add(claims, turn.index + 1, addressed);
    // A name said at the end of a reply that asks nothing ("I can take that, Priya.") is said to the one who spoke; at
    // the end of a later sentence ("And I'll check with legal. You'll hear from me by Friday, Karen.") it need not be.
    if (answers || (!asks && address.how === 'later' && at <= 0)) add(claims, turn.index - 1, addressed);
    const other = otherOf(addressed, room);
    if (other) {
      add(claims, turn.index, other);
      display.set(other.toLowerCase(), other);
    }
  }
  for (const [index, names] of claims) {
    const left = [...names].filter((name) => !notThem.get(index)?.has(name));
    if (names.size === 1 && left.length === 1) named.set(index, display.get(left[0]) ?? left[0]);
  }
  if (diarized) {
    const speakers = labelled(turns, named, labelNames, room);
    return { speakers: namedInTheMeeting(speakers, turns, heard, room), listeners: namedInTheMeeting(turnListeners(turns, speakers, room), turns, heard, room) };
  }
  const voices = room.people.length === 2 ? takingTurns(turns, named, room) : named;
  const listeners = turnListeners(turns, voices, room);
  return { speakers: namedInTheMeeting(voices, turns, heard, room), listeners: namedInTheMeeting(listeners, turns, heard, room) };
}

/** Whom a name stands for, however it is written: its last word ("Ms Alvarez", "Alvarez" → "alvarez"). */
function personOf(name: string): string {
  return name.split(/\s+/).pop()!.toLowerCase();
}

/** Of the turns a label's clues name, at least this share must name the same person for the label to be theirs. */
const LABEL_MAJORITY = 2 / 3;

/**
 * With speakers told apart (by the provider, or by voice: src/providers/voice-labels.ts), a label is a person when its
 * clues agree: a self-introduction under it, or most of the turns under it that the clues above name (the one asked
 * by name answers, the one thanked spoke before). Its name then holds for all its turns, so "I'll …" anywhere under
 * it has an owner. A label whose clues disagree may hold two people (two voices of one pitch range): its turns keep
 * only their own clues. A name two labels would take goes to neither.
 */
function labelled(turns: Turn[], clues: Map<number, string>, introduced: Map<string, string>, room: Room): Map<number, string> {
  const labels = new Set(turns.flatMap((turn) => (turn.speaker === null ? [] : [turn.speaker])));
  // More people in the room than labels: some label holds two of them, so only clues that all agree name one.
  const fewerLabels = room.people.length > labels.size;
  const votes = new Map<string, Map<string, { name: string; count: number }>>();
  for (const turn of turns) {
    const name = clues.get(turn.index);
    if (turn.speaker === null || name === undefined) continue;
    const tally = votes.get(turn.speaker) ?? new Map<string, { name: string; count: number }>();
    // One person however the clues write them: "Ms Alvarez" and "Alvarez" agree.
    const person = personOf(name);
    const entry = tally.get(person) ?? { name, count: 0 };
    entry.count++;
    tally.set(person, entry);
    votes.set(turn.speaker, tally);
  }
  const labelName = new Map(introduced);
  for (const [label, tally] of votes) {
    if (labelName.has(label)) continue;
    const total = [...tally.values()].reduce((sum, entry) => sum + entry.count, 0);
    const [top] = [...tally.values()].sort((a, b) => b.count - a.count);
    const agreed = fewerLabels ? top !== undefined && top.count === total && total >= 2 : top !== undefined && top.count >= LABEL_MAJORITY * total;
    if (agreed) labelName.set(label, top.name);
  }
  // As many labels as people in the room and all but one named: the last label is the one person left.
  const unnamed = [...labels].filter((label) => !labelName.has(label));
  const taken = new Set([...labelName.values()].map(personOf));
  const left = room.people.filter((words) => !words.some((word) => taken.has(word)));
  if (labels.size === room.people.length && unnamed.length === 1 && left.length === 1) labelName.set(unnamed[0], writtenName(left[0], room));
  const holders = new Map<string, number>();
  for (const name of labelName.values()) holders.set(personOf(name), (holders.get(personOf(name)) ?? 0) + 1);
  const speakers = new Map<number, string>();
  for (const turn of turns) {
    const name = turn.speaker === null ? undefined : labelName.get(turn.speaker);
    const own = name !== undefined && holders.get(personOf(name)) === 1 ? name : clues.get(turn.index);
    if (own !== undefined) speakers.set(turn.index, own);
  }
  return speakers;
}

/**
 * Only people the meeting names are owners (docs/decisions.md §9): a participant whose name nobody says is known
 * only from the room's list, and what they say stays unattributed, as a listener to the meeting would leave it; and
 * with the room known, whoever speaks or is spoken to is one of its participants (a name from outside it was a clue
 * misheard: "Half-aid, fine." for "Half eight, fine."). A recogniser writes a name it does not know as a word that
 * sounds like it ("Coffee" for Kofi, "Asia" for Aisha), capitalised where it took it for a name: that still says the
 * name.
 */
function namedInTheMeeting(speakers: Map<number, string>, turns: Turn[], heard: Set<string>, room: Room): Map<number, string> {
  if (room.people.length === 0) return speakers;
  const texts = turns.map((turn) => turn.clauses.join(' '));
  // "Lena's rota" says Lena.
  const words = new Set(texts.flatMap((text) => (text.toLowerCase().match(/[\p{L}'-]+/gu) ?? []).map((word) => word.replace(/'s$/, ''))));
  // Capitalised: the recogniser took it for a name.
  const capitalised = [...new Set(texts.flatMap((text) => (text.match(/(?<![\p{L}'])\p{Lu}[\p{L}'-]*/gu) ?? []).filter((word) => !isNeverAName(word))))];
  // Asked once per name, not once per turn: a long meeting has hundreds of turns and few people.
  const answers = new Map<string, boolean>();
  const said = (name: string) => {
    const last = personOf(name);
    const person = room.people.find((person) => person.includes(last));
    // Everyone who speaks joined the room: a speaker outside it is a clue misread ("Half-aid, fine." for "Half eight").
    if (!person) return false;
    if (heard.has(name.toLowerCase()) || heard.has(last) || person.some((word) => words.has(word))) return true;
    return person.some((word) => capitalised.some((heardWord) => soundsLike(heardWord, word)));
  };
  const saidOnce = (name: string) => {
    if (!answers.has(name)) answers.set(name, said(name));
    return answers.get(name)!;
  };
  return new Map([...speakers].filter(([, name]) => saidOnce(name)));
}

/**
 * In a room of two, the turns between the clues: the clues as evidence, the turns' order as two people taking turns
 * (floor.ts). A clue naming someone outside the room says nothing of who speaks and is left out.
 */
function takingTurns(turns: Turn[], named: Map<number, string>, room: Room): Map<number, string> {
  const person = (name: string) => room.people.findIndex((words) => words.includes(personOf(name)));
  const clues = new Map<number, 0 | 1>();
  for (const [index, name] of named) {
    const at = person(name);
    if (at === 0 || at === 1) clues.set(index, at);
  }
  const result = new Map(named);
  for (const [index, at] of floorHolders(turns, clues)) {
    if (result.has(index)) continue;
    result.set(index, writtenName(room.people[at], room));
  }
  return result;
}

/** How many turns back a name said to someone still says whom "you" means. */
const STILL_TALKING_TO = 6;

/**
 * Turn index → whom the turn speaks to ("you" in "can you …", "I want you to …"), where the meeting makes it clear:
 * the name it says to someone; in a room of two, the one of the two who does not say it; else the last person spoken
 * to by name in the few turns before (the talk is still with them: "Jake, let's go through your deals. … I want you to
 * call their CFO").
 */
function turnListeners(turns: Turn[], speakers: Map<number, string>, room: Room): Map<number, string> {
  const listeners = new Map<number, string>();
  let last: { name: string; at: number } | undefined;
  for (const turn of turns) {
    const address = addressIn(turn, room);
    const named = address && (room.people.length === 0 ? address.name : roomName(address.name, room, { said: true }));
    const speaker = speakers.get(turn.index);
    const other = speaker === undefined ? undefined : otherOf(speaker, room);
    const recent = last && turn.index - last.at <= STILL_TALKING_TO && last.name !== speaker ? last.name : undefined;
    const listener = named ?? other ?? recent;
    if (listener) listeners.set(turn.index, listener);
    if (named && (room.people.length === 0 || inRoom(named, room))) last = { name: named, at: turn.index };
  }
  return listeners;
}
