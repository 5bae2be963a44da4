// Action items of the builtin analyser (docs/decisions.md §9), precision first: an item is written only when the meeting
// commits to it in a way a rule can state clearly; anything else is left out. One rule per way people commit:
//   explicit markers       "action item: rotate the keys", "action item for me email the partners", "to do: …"
//   "my action is to …"    the speaker's own
//   assignments            "assign the follow up call to Sam", "assign it to Nadia" (it = what "someone has to" do)
//                          "let's have Dana look into …", "we agreed that Kim owns …", "Dev, you're in charge of …",
//                          "Marcus, that's you" / "that's on me" (the task said before), "Who's passing there?" +
//                          "Me." (the task said to be needed), "then that's yours, Aisha, ring …" (the instruction
//                          after the name), "put me down for …"
//   requests + acceptance  "Kenji can you add an alert" answered "sure" in the next turn → Kenji; unnamed → whoever
//                          accepted, if the meeting names them; a request nobody accepts is no item; "who can
//                          …?" + "I can" → whoever answered; "can you do the slides, Tom?" → Tom; "… can you write up
//                          the steps? Sure, I'll do it." in one turn (two voices a recogniser ran together)
//   directives             "lisa please schedule a demo", "everyone please update your opportunities by thursday"
//   third-person           "Mei will update the runbook", "Sarah's going to …" (a named person), "the clerk will
//                          mail the letter" (a role; not an outside party: "the customer will …" is a prediction)
//   first person           "I'll write the postmortem by thursday" → the speaker, when the meeting names them; "I
//                          email support this afternoon" as a recogniser drops "'ll" (with a time still to come);
//                          "I'll be there, and I'll file …" (the promise with a task); "I'll have the quotes in by
//                          Friday"; an offer with its time: "I can send the photos tonight", "let me … by Monday"
//   assignments to a group "for homework read pages …", "everyone reads chapter four … by Monday", "everybody needs to
//                          finalise their scores by Friday", "I want everyone to test the smoke alarms between now
//                          and Friday", "all of you, get your hours in by Friday"
//   needed, not taken on   "somebody needs to log a ticket with the vendor today" and nobody takes it on: no owner
// Left out: "I'll be honest/quick" (no task), predictions and hedges ("will probably", "might", "maybe"), conditions
// ("if we …"), reported speech ("Helen said she'll …"), questions nobody accepted, declined requests, offers nobody
// takes up and that say no time ("I can drive"), standing rules ("please always sign in"), the past ("Tom sent …": no
// future form), tasks with nothing concrete in them ("I'll do that" unless it accepts a request). Owners are names the
// meeting gives, never a recogniser's label (`speaker_0`).
import { TITLE, displayName, isBaseVerb, isVerbAfterI, isCapitalisedName, isLooseName, isRoleWord, isStrictName, isTitle, isVocativeName, startsWithVerb } from './names.ts';
import { leadingNoiseOff, ON_A_CONDITION, sameTask } from '../action-item-check.ts';
import { withAntecedent } from './antecedents.ts';
import { addresseeOf, roomName, type Room } from './speakers.ts';
import { DAY, isQuestion, stripFillers, writeItem, type Turn } from './text.ts';

const MAX_ACTION_ITEMS = 50;

const W = String.raw`[\p{L}][\p{L}'-]*`;
/**
 * A name as spoken: an optional title, one word or (only if the rest of the pattern needs it) two. Validated after
 * matching (see `nameIn`): "let's have Dana review …" takes "Dana", "Linda Park owns …" takes both words.
 */
const NAME = String.raw`((?:${TITLE}\s+)?${W}(?:\s+${W})??)`;

export interface MeetingContext {
  turns: Turn[];
  /** Turn index → who says it, where the meeting makes it clear (speakers.ts `turnSpeakers`). */
  speakers: Map<number, string>;
  /**
   * Turn index → whom it speaks to ("you"), where the meeting makes it clear without diarization (speakers.ts
   * `turnListeners`); absent, "you" is only a name the turn says.
   */
  listeners?: Map<number, string>;
  /** Whether the labels tell speakers apart (more than one label). */
  diarized: boolean;
  /** The room's participants, when known: names heard close to theirs are written as theirs. */
  room?: Room;
}

interface Item {
  owner: string | null;
  task: string;
  /** Who "you" and "me" are in the task, where known: the person spoken to, the speaker. */
  you?: string | null;
  me?: string | null;
  /** Said to be needed, and nobody took it on in the turns right after (neededByThen). */
  untaken?: boolean;
}

export function extractActionItems(context: MeetingContext): string[] {
  const consumed = new Set<string>();
  const items: Item[] = [];
  for (const turn of context.turns) {
    turn.clauses.forEach((clause, at) => {
      if (consumed.has(`${turn.index}:${at}`)) return;
      saidBefore = clausesBefore(context.turns, turn.index, at);
      const item = itemOf(clause, turn, at, context, consumed);
      if (item) items.push(item);
    });
  }
  const room = context.room;
  // An owner who is also the one spoken to ("Rina, can you …") is someone in the room.
  const named = (name: string | null | undefined, said = false) => (name && room ? roomName(name, room, { said }) : name);
  return dedupe(
    items.map((item) => {
      const spokenTo = item.owner !== null && item.you === item.owner;
      const owner = named(item.owner, spokenTo) ?? null;
      return { owner, task: thirdPerson({ ...item, owner, you: spokenTo ? owner : named(item.you), me: named(item.me) }), untaken: item.untaken };
    }),
  )
    .slice(0, MAX_ACTION_ITEMS)
    .map((item) => writeItem(item.owner, item.task));
}

/** The clauses said before a turn's clause `at`, in the order said (the turn's own first, up to two turns back). */
function clausesBefore(turns: Turn[], index: number, at: number): string[] {
  const before = turns.slice(Math.max(0, index - 2), index).flatMap((turn) => turn.clauses);
  return [...before, ...turns[index].clauses.slice(0, at)];
}

function itemOf(clause: string, turn: Turn, at: number, context: MeetingContext, consumed: Set<string>): Item | undefined {
  const bare = clause.replace(/[.!?]+\s*$/, '');
  const text = stripFillers(bare);
  // Capitals mean something except on a sentence's first word ("And Frank will …": "Frank" is not the first word).
  const startsSentence = text.length === bare.length;
  const speaker = context.speakers.get(turn.index) ?? null;
  const item =
    explicitMarker(text, speaker) ??
    myAction(text, speaker, turn, context) ??
    assignment(text, turn, at, context) ??
    letsHave(text) ??
    owns(text, startsSentence) ??
    youOwn(text, turn, at, context) ??
    thatsYours(text, turn, at, context) ??
    request(text, turn, at, context, consumed) ??
    shouldI(clause, text, turn, at, context, consumed) ??
    directive(text) ??
    addressedTask(text, turn, context) ??
    namedCommitment(text, startsSentence) ??
    thenNamed(bare) ??
    signedUp(clause, text, speaker) ??
    firstPerson(clause, text, speaker, turn, context) ??
    datedOffer(clause, text, speaker) ??
    volunteered(clause, turn, at, context) ??
    neededByThen(clause, text, turn, at, context) ??
    classAssignment(text) ??
    acceptedInstruction(clause, text, turn, at, context, consumed);
  return item && { ...item, me: item.me ?? speaker };
}

// --- the rules -------------------------------------------------------------------------------------------------------

const ACTION_MARKER = new RegExp(String.raw`\baction (?:items?|points?)\b(?:\s+for\s+(me|${W}))?\s*[:–-]?\s*(.+)$`, 'iu');
const TODO_MARKER = /\b(?:to[- ]?do|todo)\s*:\s*(.+)$/iu;
const OWNER_FIRST = new RegExp(String.raw`^${NAME}\s*(?:\bto\b|\bwill\b|\bshould\b|:|,|-)\s*(.+)$`, 'iu');

function explicitMarker(text: string, speaker: string | null): Item | undefined {
  const marker = ACTION_MARKER.exec(text);
  const todo = marker ? null : TODO_MARKER.exec(text);
  const said = marker?.[2] ?? todo?.[1];
  if (said === undefined) return undefined;
  // "Action item, Ravi to order the chairs": the comma after the marker is not part of the item.
  const rest = leadingNoiseOff(said);
  const forWhom: string | undefined = marker?.[1];
  const named = OWNER_FIRST.exec(rest);
  const namedOwner = named ? nameIn(named[1], { loose: false, initial: true }) : undefined;
  if (named && namedOwner) return taskItem(namedOwner, named[2]);
  const owner = forWhom === undefined ? null : forWhom.toLowerCase() === 'me' ? speaker : (nameIn(forWhom, { loose: true }) ?? null);
  return taskItem(owner, rest);
}

const MY_ACTION = /\bmy (?:action(?: item)?|task|to-?do|next step) is (?:to\s+)?(.+)$/iu;

/** "Tom, your task is to clean the storage room": the task of whom the turn speaks to. */
const YOUR_ACTION = /\byour (?:action(?: item)?|task|job|to-?do|next step) is (?:to\s+)?(.+)$/iu;

function myAction(text: string, speaker: string | null, turn: Turn, context: MeetingContext): Item | undefined {
  const match = MY_ACTION.exec(text);
  if (match) return taskItem(speaker, match[1]);
  const yours = YOUR_ACTION.exec(text);
  if (!yours) return undefined;
  const owner = turnAddressee(turn) ?? context.listeners?.get(turn.index) ?? null;
  return taskItem(owner, yours[1], { you: owner });
}

const ASSIGN = new RegExp(String.raw`\bassign(?:ing)?\s+(.+?)\s+to\s+${NAME}(.*)$`, 'iu');
const ANAPHOR = /^(?:it|this|that|this one|that one|them)$/i;

function assignment(text: string, turn: Turn, at: number, context: MeetingContext): Item | undefined {
  for (const match of matchesAt(ASSIGN, text)) {
    const owner = nameIn(match[2], { loose: true });
    if (!owner) continue;
    const object = match[1].trim();
    const deadline = deadlineIn(match[3]);
    const task = ANAPHOR.test(object) ? neededEarlier(turn, at, context) : object.replace(/^the\s+/i, '');
    if (!task) return undefined;
    return taskItem(owner, deadline && !deadlineIn(task) ? `${task} ${deadline}` : task, { noun: !ANAPHOR.test(object) });
  }
  return undefined;
}

const NEED = /\b(?:(?:someone|somebody|we|you)\s+(?:has to|have to|needs? to|should|must|gotta|got to|need to)|(?:we|i) need (?:someone|somebody) to|should(?:n't)? (?:someone|somebody|we))\s+(.+)$/iu;

/**
 * What "it" stands for in "assign it to Nadia" or "I'll do it": the task an earlier clause said someone has to do, or
 * asked someone to do ("Nadia, can you draft the newsletter?" → "I can't this week." → "I'll do it.").
 */
function neededEarlier(turn: Turn, at: number, context: MeetingContext): string | undefined {
  for (const clause of clausesBefore(context.turns, turn.index, at).reverse()) {
    const text = stripFillers(clause.replace(/[.!?]+\s*$/, ''));
    const match = NEED.exec(text);
    if (match) return match[1];
    // A question asking someone ("can you …?", "would you mind …?"), not one of "we" or a statement.
    const asked = isQuestion(clause) ? REQUEST.exec(text) : null;
    const someoneAsked = asked !== null && (GROUP_REQUESTEE.test(asked[2]) || nameIn(asked[2], { loose: true }) !== undefined);
    if (asked && someoneAsked && !PRO_TASK.test(cleanTask(asked[3]))) return askedTask(asked[3]);
  }
  return undefined;
}

const LETS_HAVE = new RegExp(String.raw`\b(?:let's|lets|let us)\s+(?:have|get|ask)\s+${NAME}\s+(?:to\s+)?(.+)$`, 'iu');
/** "Get Marcus clearing dock five first thing", "Have Omar check the invoices": the same, said as an instruction. */
const GET_SOMEONE = new RegExp(String.raw`^(?:get|have)\s+${NAME}\s+(?:(to)\s+)?(.+)$`, 'iu');

function letsHave(text: string): Item | undefined {
  for (const match of matchesAt(LETS_HAVE, text)) {
    // "let's have Leo send …": a capitalised word there is a person, even one the lexicon knows as something else.
    const owner = nameIn(match[1], { loose: true }) ?? nameIn(match[1], { loose: false, capitalised: true });
    if (owner) return taskItem(owner, match[2]);
  }
  const instructed = GET_SOMEONE.exec(text);
  // Only a name: "get the engineer back", "have a look" are not someone given a task.
  const owner = instructed ? nameIn(instructed[1], { loose: false, capitalised: true }) : undefined;
  if (!instructed || !owner) return undefined;
  // A verb follows: "to clear", "clearing", or one the lexicon knows ("check").
  const [, , to, rest] = instructed;
  return to !== undefined || /^\p{L}+ing\b/iu.test(rest) || startsWithVerb(rest) ? taskItem(owner, rest) : undefined;
}

// Items keep the verbs as they were said ("clearing dock five", "owns the migration", "scanning the receipts"): a
// tenant's keywords are words of the meeting, and a form the meeting never said would not contain them.

const OWNS = new RegExp(
  String.raw`${NAME}\s+(owns|will own|is going to own|is responsible for|will be responsible for|is in charge of|will be in charge of)\s+(.+)$`,
  'iu',
);

/**
 * "Dev, you're in charge of the race timetable": the one spoken to owns it; "you're on the van" only said to someone
 * by name ("you're on mute" is not a task).
 */
const YOU_OWN = new RegExp(String.raw`^(?:${NAME},\s+)?(?:(?:then|so|okay|ok|right),?\s+)?(?:you're|you are|you'll be|you will be)\s+(in charge of|responsible for|handling|looking after|on)\s+(.+)$`, 'iu');

function youOwn(text: string, turn: Turn, at: number, context: MeetingContext): Item | undefined {
  const match = YOU_OWN.exec(text);
  if (!match) return undefined;
  const [, vocative, how, what] = match;
  const said = vocative !== undefined && isVocativeName(vocative.split(/\s+/).pop()!, true) ? displayName(vocative) : undefined;
  const on = how.toLowerCase() === 'on';
  // "Omar, you're on the van. Book it by Thursday.": the instruction that follows says the task.
  if (on && (!said || turn.clauses.slice(at + 1).some((clause) => startsWithVerb(stripFillers(clause))))) return undefined;
  const owner = said ?? turnAddressee(turn) ?? context.listeners?.get(turn.index) ?? null;
  return taskItem(owner, `${on ? 'take' : 'own'} ${what}`, { noun: true, you: owner });
}

/**
 * "Somebody has to order the copper sulphate." → "Marcus, that's you." gives Marcus the task said before; "That's me."
 * or "That's on me." takes it for the speaker, unless the speaker then says what they will do ("I'll email them").
 */
const THATS_YOU = new RegExp(String.raw`^(?:(?:then|so|okay|ok|right)[,]?\s+)?(?:${NAME},\s+)?that(?:'s| is| one's)\s+(?:you|yours|on you)\b(?:,?\s+${NAME})?`, 'iu');
const THATS_ME = /^(?:i suppose |i guess |well |okay |ok )?(?:that's|that is|that one's)\s+(?:me|mine|on me)\b/iu;

function thatsYours(text: string, turn: Turn, at: number, context: MeetingContext): Item | undefined {
  const mine = THATS_ME.test(text);
  const yours = mine ? null : THATS_YOU.exec(text);
  if (!mine && !yours) return undefined;
  const isName = (said: string | undefined) => said !== undefined && isVocativeName(said.split(/\s+/).pop()!, true);
  // "Then that's yours, Aisha, ring the policyholder …": the instruction that follows is the task.
  const follows = yours && isName(yours[2]) ? text.slice(yours[0].length).replace(/^[,.]?\s+/, '') : '';
  const task = follows && startsWithVerb(follows) ? follows : neededEarlier(turn, at, context);
  if (!task) return undefined;
  if (mine) {
    if (turn.clauses.slice(at + 1).some((clause) => FIRST_PERSON.test(clause))) return undefined;
    return taskItem(context.speakers.get(turn.index) ?? null, task);
  }
  const vocative = [yours![1], yours![2]].find(isName);
  const owner = (vocative && displayName(vocative)) ?? turnAddressee(turn) ?? context.listeners?.get(turn.index) ?? null;
  return taskItem(owner, task, { you: owner });
}

function owns(text: string, startsSentence: boolean): Item | undefined {
  for (const match of matchesAt(OWNS, text)) {
    // "Jun owns the migration": a capitalised word before "owns" is whoever owns it, even one the lexicon reads as
    // something else ("Jun" is also a month).
    const single = match[1].trim();
    const owner =
      nameIn(match[1], { loose: false, initial: startsSentence && match.index === 0, capitalised: true }) ??
      (!/\s/.test(single) && isCapitalisedName(single) && !isRoleWord(single) ? displayName(single) : undefined);
    // "Jun owns the migration" stays "owns"; "Jun is responsible for the migration" is "own the migration".
    if (owner) return taskItem(owner, `${match[2].toLowerCase() === 'owns' ? 'owns' : 'own'} ${match[3]}`, { noun: true });
  }
  return undefined;
}

const REQUEST = new RegExp(
  String.raw`^(?:${NAME},?\s+(?:please,?\s+)?)?(?:can|could|would|will)\s+(you|someone|somebody|anyone|anybody|staff|${W}(?:\s+${W})??)(?:\s+please)?,?\s+(.+)$`,
  'iu',
);
/** "Paul, what you set up a rotation": a recogniser's "would you" after a name said to someone. */
const HEARD_AS_WHAT_YOU = new RegExp(String.raw`^${NAME},\s+what you\s+(.+)$`, 'iu');
const INNER_VOCATIVE = new RegExp(String.raw`,\s*(${W}),\s+(?:can|could|would|will|what)\s+you\b`, 'u');
/** ", okay, can you …", "In that case, could you …": a request after words that only hand over or link. */
const ASKED_AFTER_ASIDE =
  /(?:^|,\s*)(?:okay|ok|so|right|alright|now|in that case|if so|then|also|meanwhile|in the meantime)[,]?\s+(?=(?:can|could|would|will)\s+(?:you|someone|somebody|anyone)\b)/i;
/**
 * "do that", "take care of it": a request or a promise that points back at a task said just before ("I'll do it",
 * "I'll take that"); "take it to Dave's garage" carries something somewhere.
 */
const PRO_TASK = /^(?:do|handle|take|take care of|manage|sort out|look after)\s+(?:that|it|this|that one|this one)(?!\s+(?:to|round|over|back|in|into|down|up|out)\b)(?:[\s,;]+(.*))?$/i;
/** "who can update the docs?" answered "I can": the one who answered. */
const WHO_REQUEST = /^who(?:'s| is)? (?:can|could|will|wants to|would like to|is going to|going to|has time to)\s+(.+)$/iu;
const GROUP_REQUESTEE = /^(?:you|someone|somebody|anyone|anybody|staff)$/i;
/** A name said after the request: "can you do the slides, Tom?". */
const TRAILING_VOCATIVE = new RegExp(String.raw`,\s*${NAME}\s*$`, 'u');
const ACCEPT =
  /^(?:sure|yes|yeah|yep|yup|ok|okay|of course|absolutely|definitely|certainly|no problem|no worries|will do|on it|can do|happy to|i can|i will|i'll|i'm on it|got it|you got it|consider it done|leave it with me|leave that with me|not at all|fine|deal|me|i suppose so|go on then)\b/i;
const DECLINE = /\b(?:not sure|can't|cannot|no time|don't|won't|not this|but|probably|maybe)\b/i;

/** "Can you …", "Tom, could you …", "will Tom …": asks someone; "his tutor can see it first thing" does not. */
function asksSomeone(text: string): boolean {
  const match = REQUEST.exec(text);
  if (!match) return false;
  const [, vocative, requestee] = match;
  if (vocative !== undefined && nameIn(vocative, { loose: true, initial: true }) === undefined) return false;
  return GROUP_REQUESTEE.test(requestee) || nameIn(requestee, { loose: true }) !== undefined;
}

/** "would you mind calling the landlord" asks for "calling the landlord". */
const MIND_DOING = /^mind\s+(\p{L}+ing\b.*)$/iu;

/** "would you be so kind as to speak to the council" asks for "speak to the council". */
const POLITELY = /^(?:be so kind as to|be good enough to|be able to|kindly)\s+/i;

function askedTask(asked: string): string {
  return MIND_DOING.exec(asked.trim())?.[1] ?? asked.trim().replace(POLITELY, '');
}

/** "Kenji can you add an expiry alert …" + "sure" from the next speaker; the acceptance is not an item again. */
function request(text: string, turn: Turn, at: number, context: MeetingContext, consumed: Set<string>): Item | undefined {
  // "… can you write up the steps? Sure, I'll do it after this.": two voices a recogniser ran into one turn.
  const next = turn.clauses[at + 1];
  const replyAt = next !== undefined && ANSWERED_HERE.test(stripLeadingNoise(next)) ? at + 1 : -1;
  // An answer answers the last thing asked: later clauses may add a detail ("Use the club card."), not another question.
  if (replyAt === -1 && turn.clauses.slice(at + 1).some((clause) => isQuestion(clause) || asksSomeone(stripFillers(clause)))) return undefined;
  // "Then we need it in writing, Luis, would you write a formal letter?": the request starts at the name.
  // "Then we tell them, okay, can you write up a short how-to?": the request starts after the aside.
  const inner = INNER_VOCATIVE.exec(text);
  const aside = ASKED_AFTER_ASIDE.exec(text);
  if (inner && isVocativeName(inner[1], false)) text = text.slice(inner.index).replace(/^,\s*/, '');
  else if (aside) text = text.slice(aside.index + aside[0].length);
  const who = WHO_REQUEST.exec(text);
  const heard = who ? null : HEARD_AS_WHAT_YOU.exec(text);
  const match = who || heard ? null : REQUEST.exec(text);
  if (!who && !match && !heard) return undefined;
  const [vocative, requestee, asked] = match ? [match[1], match[2], match[3]] : heard ? [heard[1], 'you', heard[2]] : [undefined, 'someone', who![1]];
  // A name set off by a comma before the question is said to someone, whatever the lexicon says of it ("Leo, will you …").
  const saidTo = vocative !== undefined && text.charAt(vocative.length) === ',' && isVocativeName(vocative, false) ? displayName(vocative) : undefined;
  let addressed = vocative === undefined ? null : (nameIn(vocative, { loose: true, initial: true }) ?? saidTo ?? null);
  if (vocative !== undefined && !addressed) return undefined;
  // "Pat, you know the housing office. Can you file a complaint?": the turn says whom it asks.
  if (vocative === undefined && GROUP_REQUESTEE.test(requestee) && requestee.toLowerCase() === 'you') addressed = turnAddressee(turn) ?? null;
  const requesteeName = GROUP_REQUESTEE.test(requestee) ? null : (nameIn(requestee, { loose: true }) ?? null);
  if (!GROUP_REQUESTEE.test(requestee) && !requesteeName) return undefined;
  let vp = askedTask(asked);
  const trailing = TRAILING_VOCATIVE.exec(vp);
  const trailingName = trailing ? nameIn(trailing[1], { loose: false, capitalised: true }) : undefined;
  if (trailing && trailingName) {
    addressed ??= trailingName;
    vp = vp.slice(0, trailing.index);
  }
  const answer = replyAt === -1 ? answerTo(turn, context) : { turn, at: replyAt };
  if (!answer) return undefined;
  const reply = stripLeadingNoise(answer.turn.clauses[answer.at]);
  if (!ACCEPT.test(reply) || DECLINE.test(reply)) return undefined;
  let task = withAntecedent(cleanTask(vp), saidBefore);
  // "Could you do that?" after "you should book an inspector this week": the task said before (what follows "that"
  // is not kept).
  if (PRO_TASK.test(task)) task = cleanTask(neededEarlier(turn, at, context) ?? task);
  if (!isTask(task)) return undefined;
  consumed.add(`${answer.turn.index}:${answer.at}`);
  // The one who accepted in a turn of its own; in the asker's turn, only the one asked by name.
  const accepter = replyAt === -1 ? (context.speakers.get(answer.turn.index) ?? null) : null;
  // "Can you …?" with no name: whom the talk is with.
  const listener = requestee.toLowerCase() === 'you' ? (context.listeners?.get(turn.index) ?? null) : null;
  const owner = addressed ?? requesteeName ?? accepter ?? listener;
  return { owner, task: withAnswer(task, reply), you: owner };
}

/**
 * The task as accepted: "Can you phone them today?" + "I'll phone the supplier this afternoon" is "phone the supplier
 * this afternoon" (the answer says more, with the same verb); otherwise the request with the answer's deadline.
 */
function withAnswer(task: string, reply: string): string {
  const promised = FIRST_PERSON.exec(stripFillers(reply.replace(/[.!?]+\s*$/, '')));
  const answered = promised ? cleanTask(promised[1]) : undefined;
  const pointsBack = /\b(?:it|them|that|this(?!\s+(?:morning|afternoon|evening|week|weekend|month|time)))\b/i;
  if (answered && isTask(answered) && answered.split(' ')[0].toLowerCase() === task.split(' ')[0].toLowerCase() && !pointsBack.test(answered)) {
    return answered;
  }
  // The deadline agreed is the answer's: "this week?" answered "for Thursday".
  const deadline = deadlineIn(reply);
  if (!deadline) return task;
  const asked = deadlineIn(task);
  return asked ? task.replace(asked, deadline) : `${task} ${deadline}`;
}

/** The turn that answers a request: the next one (with speakers told apart, the next by someone else, within two turns). */
function answerTo(turn: Turn, context: MeetingContext): { turn: Turn; at: number } | undefined {
  if (!context.diarized) {
    // A recogniser may cut a trailing "please." into a segment of its own: the answer is the turn after it.
    let next = context.turns[turn.index + 1];
    if (next && COURTESY_ONLY.test(next.clauses.join(' '))) next = context.turns[turn.index + 2];
    return next ? { turn: next, at: 0 } : undefined;
  }
  for (let t = turn.index + 1; t <= turn.index + 2 && t < context.turns.length; t++) {
    if (context.turns[t].speaker !== turn.speaker) return { turn: context.turns[t], at: 0 };
    // Speakers told apart by voice may give two voices of one pitch one label: a reply right after is still a reply.
    if (t === turn.index + 1 && REPLIES.test(stripFillers(context.turns[t].clauses.join(' ')))) return { turn: context.turns[t], at: 0 };
  }
  return undefined;
}

const COURTESY_ONLY = /^\s*(?:please|thanks|thank you)[.!]?\s*$/i;
/** An acceptance that says its promise ("Sure, I'll do it after this."): said right after a request, it answers it. */
const ANSWERED_HERE = /^(?:sure|yes|yeah|yep|okay|ok|of course|no problem)[,.!]?\s+(?:i'll|i will)\b/i;

/** The name a turn says to someone ("Pat, you know …", "… doable, Maya."), if it does. */
function turnAddressee(turn: Turn): string | undefined {
  return addresseeOf(turn.clauses.join(' '));
}

function stripLeadingNoise(text: string): string {
  return text.replace(/^(?:(?:um+|uh+|uhm|er+m?|oh|ah|ugh|well|hmm+)\b[,.]?\s*)+/i, '').trim();
}

const YOU_MUST = String.raw`(?:i want you to|i need you to|you'll need to|you will need to|you need to|you'll have to|you have to|you're going to|you are going to|you'll|you will|please)`;
const DIRECTIVE = new RegExp(String.raw`^(?:(everyone|everybody|all|all of you|each of you|team|folks|guys|you all|y'all)|${NAME}),?\s+please\s+(.+)$`, 'iu');
const STANDING_RULE = /\b(?:always|never|whenever|every time|when you)\b/i;
/** "Please send me the report by Friday, Tom": the name said after the instruction is whom it is for. */
const PLEASE_THEN_NAME = new RegExp(String.raw`^please\s+(.+?),\s*${NAME}$`, 'iu');
const INNER_PLEASE = new RegExp(String.raw`,\s*${W},\s+please\s`, 'u');

/**
 * "Should I tell the servers to stop offering the salmon?" answered "Yes, please …": the one who asked takes it on
 * (a question of "we" stays a question: it names no one).
 */
const SHOULD_I = /^(?:should|shall)\s+i\s+(.+?)\??$/iu;
const YES = /^(?:yes|yeah|yep|yup|sure|please|please do|go ahead|definitely|absolutely|of course|good idea)\b/i;

function shouldI(clause: string, text: string, turn: Turn, at: number, context: MeetingContext, consumed: Set<string>): Item | undefined {
  if (at !== turn.clauses.length - 1 || !/\?\s*$/.test(clause)) return undefined;
  const match = SHOULD_I.exec(text);
  if (!match) return undefined;
  const answer = answerTo(turn, context);
  const reply = answer ? stripLeadingNoise(answer.turn.clauses[0]) : '';
  if (!answer || !YES.test(reply) || DECLINE.test(reply)) return undefined;
  const item = taskItem(context.speakers.get(turn.index) ?? null, match[1]);
  if (item) consumed.add(`${answer.turn.index}:0`);
  return item;
}

function directive(text: string): Item | undefined {
  // "Then drop them, Ravi, please shorten the form": the request starts at the name said to someone.
  const inner = INNER_PLEASE.exec(text);
  if (inner) text = text.slice(inner.index).replace(/^,\s*/, '');
  const named = PLEASE_THEN_NAME.exec(text);
  const trailing = named ? nameIn(named[2], { loose: false, capitalised: true }) : undefined;
  if (named && trailing && !STANDING_RULE.test(named[1])) return taskItem(trailing, named[1], { you: trailing });
  const match = DIRECTIVE.exec(text);
  if (!match || STANDING_RULE.test(match[3])) return undefined;
  if (match[1]) return taskItem(null, match[3]);
  const owner = nameIn(match[2], { loose: true, initial: true });
  return owner ? taskItem(owner, match[3], { you: owner }) : undefined;
}

/**
 * A task said to someone by name: "Tina, grab two chairs from the patio", "Elena, you'll need to rerun the samples",
 * "Jake, I want you to call their CFO"; and "I want you to …" in a turn that names whom it speaks to.
 */
const ADDRESSED = new RegExp(String.raw`^${NAME},\s+(?:${YOU_MUST}\s+)?(.+)$`, 'iu');
const WANT_YOU = new RegExp(String.raw`\b(?:i want you to|i need you to|i'd like you to)\s+(.+)$`, 'iu');

function addressedTask(text: string, turn: Turn, context: MeetingContext): Item | undefined {
  if (isQuestion(text)) return undefined;
  const match = ADDRESSED.exec(text);
  // Every word of it a name: "Whoever's free, grab it" speaks to no one.
  const vocative = match ? match[1].split(/\s+/).every((word) => isTitle(word) || isVocativeName(word, text === match.input)) : false;
  const name = match && vocative ? displayName(match[1].replace(/'s$/i, '')) : undefined;
  if (match && name && startsWithVerb(match[2].replace(LEADING_ADVERBS, ''))) {
    const item = taskItem(name, match[2], { you: name, toOthers: true });
    if (item) return item;
  }
  const wanted = WANT_YOU.exec(text);
  if (!wanted) return undefined;
  const owner = turnAddressee(turn) ?? context.listeners?.get(turn.index) ?? null;
  return taskItem(owner, wanted[1], { you: owner });
}

/**
 * An instruction the next speaker accepts: "Draft a counter offer and send it to me." → "Okay, I'll have it to you
 * tomorrow." The one told is whom the turn names, else whoever accepted, when the meeting says who that is. And an
 * offer taken up: "I can call the morning patients." → "Please do."
 */
/** Words that may open an offer ("But I can …", "So, happy to …"), and saying one is glad to. */
const OFFER_OPENER = String.raw`(?:(?:but|and|so|well|then|or),?\s+)?`;
const HAPPY_TO = String.raw`i'm happy to|i am happy to|happy to`;
// "The trial is fixed at 30 days, but I could set up a training call": an offer after what cannot be done.
const OFFER = new RegExp(String.raw`^(?:.*?,\s+but\s+|${OFFER_OPENER})(?:i can|i could|${HAPPY_TO})\s+(.+)$`, 'iu');
const COPULA_EARLY = /^(?:[\p{L}\p{N}'-]+\s+){1,2}(?:is|are|was|were|isn't|aren't|wasn't|weren't)\b/iu;
const TAKEN_UP = /^(?:please do|(?:yes|yeah|oh)\b,?\s*(?:please|let's do (?:that|it)|do that|that would|that'd)|let's do (?:that|it)|go ahead|that would (?:help|be great)|that'd (?:help|be great)|perfect|great|sounds good|thanks|thank you)\b/i;

function acceptedInstruction(clause: string, text: string, turn: Turn, at: number, context: MeetingContext, consumed: Set<string>): Item | undefined {
  if (isQuestion(clause)) return undefined;
  const askedFor = instructionAskedFor(text, turn, context);
  if (askedFor) return askedFor;
  // An answer answers what was asked last: a later clause that is itself an instruction or an offer answers instead.
  const later = turn.clauses.slice(at + 1).map((c) => stripFillers(c.replace(/[.!?]+\s*$/, '')));
  if (later.some((c) => isQuestion(c) || OFFER.test(c) || startsWithVerb(c.replace(/^please\s+/i, '')))) return undefined;
  // "Can you order the balls? Use the club card." + "Sure": the answer takes up the request, not its detail.
  if (turn.clauses.slice(0, at).some((c) => REQUEST.test(stripFillers(c.replace(/[.!?]+\s*$/, ''))))) return undefined;
  const answer = answerTo(turn, context);
  if (!answer) return undefined;
  const reply = stripLeadingNoise(answer.turn.clauses[0]);
  const offer = OFFER.exec(text);
  if (offer) {
    if (!TAKEN_UP.test(reply) || DECLINE.test(reply)) return undefined;
    return taskItem(context.speakers.get(turn.index) ?? null, offer[1]);
  }
  const instruction = text.replace(/^please\s+/i, '');
  const head = instruction.split(/\s+/)[0] ?? '';
  // "Will do. Anything else?" accepts; "Okay, by when?" asks back.
  if (/^(?:let|let's|lets)$/i.test(head) || !ACCEPT.test(reply) || DECLINE.test(reply) || isQuestion(answer.turn.clauses[0])) return undefined;
  // "Dock five is still blocked" is news, not "dock" the five: a verb of being right after the first words.
  if (!startsWithVerb(instruction) || COPULA_EARLY.test(instruction)) return undefined;
  const owner = turnAddressee(turn) ?? context.speakers.get(answer.turn.index) ?? context.listeners?.get(turn.index) ?? null;
  const item = taskItem(owner, instruction, { you: owner, toOthers: true });
  if (!item) return undefined;
  consumed.add(`${answer.turn.index}:0`);
  const deadline = deadlineIn(reply);
  return deadline && !deadlineIn(item.task) ? { ...item, task: `${item.task} ${deadline}` } : item;
}

/** "What do you want me to do overnight?", "Anything else you need from me?": someone asks to be told what to do. */
const ASKS_WHAT_TO_DO =
  /\b(?:what (?:do|would) you (?:want|need|like) me to (?:do|take|handle)|what (?:should|shall|can) i (?:do|take on)|what do you need (?:me to do|from me)|anything (?:else )?you (?:want|need) (?:me to do|from me))\b/i;

/**
 * The instructions given in answer to "what do you want me to do?" are the asker's tasks, taken on by asking: no
 * acceptance follows, and every instruction of the answer counts ("Please do hourly checks … and write them in the
 * chart.").
 */
function instructionAskedFor(text: string, turn: Turn, context: MeetingContext): Item | undefined {
  const before = context.turns[turn.index - 1];
  if (!before || (context.diarized && before.speaker === turn.speaker)) return undefined;
  if (!ASKS_WHAT_TO_DO.test(before.clauses.at(-1) ?? '')) return undefined;
  const instruction = text.replace(/^please\s+/i, '');
  if (!startsWithVerb(instruction) || COPULA_EARLY.test(instruction)) return undefined;
  const owner = turnAddressee(turn) ?? context.speakers.get(before.index) ?? context.listeners?.get(turn.index) ?? null;
  return taskItem(owner, instruction, { you: owner, toOthers: true });
}

const NAMED_WILL = new RegExp(String.raw`${NAME}(?:\s+(?:will|is going to|is gonna)|'ll|'s going to|'s gonna)\s+(.+)$`, 'iu');
const ROLE_WILL = /\b(?:the|our)\s+((?:\p{L}+\s+)?\p{L}+)\s+(?:will|is going to)\s+(.+)$/iu;
/** What someone outside the meeting's organisation will do is a prediction, not an item ("the vendor will …"). */
const OUTSIDE_PARTIES = new Set(
  `customer customers client clients vendor vendors supplier suppliers contractor contractors consultant consultants
  provider providers partner partners agency operator landlord patient patients family buyer prospect auditor
  auditors insurer regulator competitor competitors`.split(/\s+/),
);
/**
 * Words before a commitment that make it something other than one: a condition, a report, a guess, a question ("what
 * I'll do …" in the same part of the sentence; "I'm not sure why that is, leave it with me, I'll …" still promises).
 */
const NOT_A_COMMITMENT_BEFORE = /\b(?:if|unless|whether|when|in case|said|says|say|asked|asks|mentioned|thinks?|thought|hopes?|hoped|maybe|perhaps|probably|wonder(?:ed)?|whoever)\b|\b(?:what|why|how)\b[^,]*$/i;

/** "Great, then Pat collects the signatures on Saturday": an assignment said as what happens next. */
const THEN_NAMED = new RegExp(String.raw`^(?:[\p{L}']+[,.]?\s+){0,2}?(?:then|so)\s+(${W}),?\s+(.+)$`, 'iu');

function thenNamed(text: string): Item | undefined {
  const match = THEN_NAMED.exec(text);
  if (!match || !isVocativeName(match[1], false) || !presentVerb(match[2])) return undefined;
  return taskItem(displayName(match[1]), baseForm(match[2]), { toOthers: true });
}

/** "collects the signatures", "collect the signatures": a verb in the present, not "said" or "was". */
function presentVerb(phrase: string): boolean {
  const head = phrase.split(/\s+/)[0].toLowerCase();
  if (/^(?:is|was|were|has|had|did|does|said|says|thinks?|knows?|wants?|likes?|seems?)$/.test(head)) return false;
  return startsWithVerb(phrase) || (/s$/.test(head) && startsWithVerb(`${head.replace(/e?s$/, '')} ${phrase.slice(head.length)}`));
}

function baseForm(phrase: string): string {
  const [head, ...rest] = phrase.split(/\s+/);
  if (startsWithVerb(phrase)) return phrase;
  const base = startsWithVerb(head.replace(/s$/, '')) ? head.replace(/s$/, '') : head.replace(/es$/, '');
  return [base, ...rest].join(' ');
}

function namedCommitment(text: string, startsSentence: boolean): Item | undefined {
  for (const match of matchesAt(NAMED_WILL, text)) {
    if (NOT_A_COMMITMENT_BEFORE.test(text.slice(0, match.index)) || isQuestion(text)) return undefined;
    // "Sam will you benchmark the queue" is a question a recogniser wrote without its mark.
    if (/^(?:you|i|we|they|he|she|it)\b/i.test(match[2])) return undefined;
    const owner = nameIn(match[1], { loose: false, initial: startsSentence && match.index === 0, capitalised: true });
    if (owner) return taskItem(owner, match[2], { before: text.slice(0, match.index) });
  }
  const match = ROLE_WILL.exec(text);
  if (match && !NOT_A_COMMITMENT_BEFORE.test(text.slice(0, match.index)) && !isQuestion(text)) {
    const words = match[1].split(/\s+/);
    const role = words[words.length - 1].toLowerCase();
    if (isRoleWord(role) && !OUTSIDE_PARTIES.has(role)) {
      const item = taskItem(null, match[2]);
      if (item) return { owner: null, task: `${item.task} (the ${match[1].toLowerCase()})` };
    }
  }
  return undefined;
}

/** "Put me down for printing the flyers", "sign me up for the Saturday shift": the speaker volunteers. */
const SIGN_ME_UP = /\b(?:put me down|sign me up|count me in|pencil me in)\s+(?:for|to)\s+(.+)$/iu;

function signedUp(clause: string, text: string, speaker: string | null): Item | undefined {
  const match = SIGN_ME_UP.exec(text);
  if (!match || isQuestion(clause) || NOT_A_COMMITMENT_BEFORE.test(text.slice(0, match.index))) return undefined;
  return taskItem(speaker, match[1]);
}

/** "I'll …"; a promise said twice running ("I will I'll circulate it", a full stop the recogniser left out) is one. */
const PROMISE = String.raw`(?:i'll|i will|i'm going to|i am going to|i'm gonna|i shall)`;
const FIRST_PERSON = new RegExp(String.raw`\b${PROMISE}\s+(?:${PROMISE}\s+)*(.+)$`, 'iu');

/**
 * "I'll" as a recogniser often hears it: "then I write the cleanup job myself", "I order more lemons for tomorrow".
 * Read as a promise only with a time still to come (or "myself") and a verb that does something.
 */
const FIRST_PERSON_HEARD = /(?:^|,\s+)(?:then\s+|so\s+|and\s+)?i\s+(?!(?:think|guess|hope|know|mean|want|need|like|love|hate|feel|believe|suppose|agree|see|wonder|remember|forget|am|was|have|had|did|can|could|would|should|might|must|may)\b)(?!do\b(?!\s+(?:the|a|an)\b))(\p{L}+\b.*)$/iu;
const STILL_TO_COME = new RegExp(
  String.raw`\b(?:tomorrow|tonight|later|today|this (?:morning|afternoon|evening|weekend|week)|next (?:week|month|${DAY})|for tomorrow|by (?:${DAY}|the end)|(?:on|before) ${DAY}|before (?:lunch|noon|the \p{L}+|(?:it|they|we|you|he|she) (?:starts?|begins?|opens?|goes out|go|leaves?|arrives?))|after (?:lunch|practice|school|service|work|the break)|straight (?:after|away)|right away|first thing|myself)\b`,
  'iu',
);

/** Where a clause makes another promise: "I'll be there, and I'll file …". */
const NEXT_PROMISE = new RegExp(String.raw`,\s*(?:(?:and|then|so)\s+)?(?=${PROMISE}\s)`, 'iu');
/** ", and if they don't answer, I'll phone …": a condition opening a later clause holds for what follows it. */
const LATER_CONDITION = /,\s*(?:(?:and|but|or)\s+)?(?:if|unless|when|once|in case)\s.*$/iu;

function firstPerson(clause: string, said: string, speaker: string | null, turn: Turn, context: MeetingContext): Item | undefined {
  const promiseFirst = FIRST_PERSON.exec(said);
  const text = promiseFirst && !ON_A_CONDITION.test(said.slice(0, promiseFirst.index)) ? said.replace(LATER_CONDITION, '') : said;
  // "I'll be there, and I'll file four hundred words by nine": a promise with no task gives way to the next one.
  const promises = text.split(NEXT_PROMISE);
  const first = promises.length > 1 ? FIRST_PERSON.exec(promises[0]) : null;
  if (first && !taskItem(null, first[1]) && !NOT_A_COMMITMENT_BEFORE.test(promises[0])) {
    return firstPerson(clause, promises.slice(1).join(', '), speaker, turn, context);
  }
  const promised = FIRST_PERSON.exec(text);
  const heard = FIRST_PERSON_HEARD.exec(text);
  const match =
    promised ?? (heard && STILL_TO_COME.test(heard[1]) && !/\bevery\b/i.test(heard[1]) && isVerbAfterI(heard[1]) ? heard : null);
  if (!match || NOT_A_COMMITMENT_BEFORE.test(text.slice(0, match.index)) || isQuestion(clause) || ON_A_CONDITION.test(match[1])) {
    return undefined;
  }
  // "I'll email you the schedule": "you" is whom the turn names, else who spoke just before, when known.
  const you = turnAddressee(turn) ?? context.speakers.get(turn.index - 1) ?? null;
  const owner = speaker ?? askedOf(turn, context);
  // "We need someone to renew the domain." → "I'll do it.": the task said just before.
  const pointing = PRO_TASK.exec(cleanTask(match[1]));
  const needed = pointing ? neededEarlier(turn, 0, context) : undefined;
  // "I'll do it, I have time" with nothing said before that "it" could be: nothing to write.
  if (pointing && !needed) return undefined;
  // Of what follows "it", only a deadline belongs to the task: "I'll do it by Friday", not "I'll do it, I have time".
  const deadline = pointing?.[1] ? deadlineIn(pointing[1]) : undefined;
  const task = needed ? `${needed}${deadline ? ` ${deadline}` : ''}` : match[1];
  return taskItem(owner, task, { you: you === owner ? null : you, before: text.slice(0, match.index) });
}

/** "I can send the photos tonight", "let me book that for the weekend after next": an offer with its time is a promise. */
const OFFER_NOW = new RegExp(String.raw`^${OFFER_OPENER}(?:i can|${HAPPY_TO}|let me)\s+(.+)$`, 'iu');

function datedOffer(clause: string, text: string, speaker: string | null): Item | undefined {
  const offer = OFFER_NOW.exec(text);
  if (!offer || isQuestion(clause) || ON_A_CONDITION.test(offer[1])) return undefined;
  const task = cleanTask(offer[1]);
  if (!deadlineIn(task) && !STILL_TO_COME.test(task)) return undefined;
  return taskItem(speaker, offer[1]);
}

/** "Me.", "I will.": a volunteer's whole answer. */
const VOLUNTEER = /^(?:me|i will|i can|i am)[.!]?$/i;

/**
 * "Somebody needs to put the sale on the notice board. Who's passing there?" answered "Me.": the task said to be
 * needed is the one who answered's.
 */
function volunteered(clause: string, turn: Turn, at: number, context: MeetingContext): Item | undefined {
  const before = context.turns[turn.index - 1];
  const asked = before?.clauses[before.clauses.length - 1];
  if (at !== 0 || !VOLUNTEER.test(clause.trim()) || !asked || !isQuestion(asked) || !/^\s*who\b/i.test(stripFillers(asked))) return undefined;
  const needed = neededEarlier(turn, 0, context);
  return needed ? taskItem(context.speakers.get(turn.index) ?? null, needed) : undefined;
}

/** "Somebody needs to log a ticket with the vendor today": a task someone must do, and by when. */
const SOMEONE_NEEDS = /^(?:someone|somebody)(?: from [\p{L} ]+?)? (?:needs to|has to|must)\s+(.+)$/iu;
/** A turn that takes on what was just said: "I'll …", "Me.", "Leave that with me", "That's on me". */
const TAKES_IT_ON = /^(?:me\b|i'll|i will|i can|leave (?:that|it) with me|that's (?:on )?me|that one's mine|mine\b|on it|will do)/i;

/**
 * A task someone must do by a time still to come, that nobody in the next turns takes on: an item with no owner
 * ("Somebody needs to ring social services this morning"). Taken on, it is the taker's (firstPerson, volunteered).
 */
function neededByThen(clause: string, text: string, turn: Turn, at: number, context: MeetingContext): Item | undefined {
  const match = SOMEONE_NEEDS.exec(text);
  if (!match || isQuestion(clause) || (!deadlineIn(match[1]) && !STILL_TO_COME.test(match[1]))) return undefined;
  const next = context.turns.slice(turn.index + 1, turn.index + 3);
  const after = turn.clauses.slice(at + 1);
  if (after.some(isQuestion) || next.some((later) => TAKES_IT_ON.test(stripLeadingNoise(stripFillers(later.clauses[0] ?? ''))))) return undefined;
  const item = taskItem(null, match[1]);
  return item && { ...item, untaken: true };
}

/** A turn that asks someone for something or a question: "can you …", "I need the schedule", "please …", "…?". */
const ASKS = /\b(?:(?:can|could|would|will) you|you(?:'ll| will)? (?:should|need to|have to|must)|i (?:need|want|'d like)|please)\b/i;
/** A question to the room: "can someone …", "anyone free to …", "who can …". */
const ASKS_ANYONE = /\b(?:someone|somebody|anyone|anybody|everyone|everybody)\b|^\s*(?:\p{L}+[,.]?\s+)?who\b/iu;
/** How far back a promise may answer what was asked (a recogniser cuts a request into pieces). */
const ANSWERS_WITHIN = 2;

/**
 * Whoever an unattributed promise answers: "Can you phone them today?" → "I'll phone the supplier this afternoon." is
 * said by the one that was asked (turnListeners), when a turn just before asked someone for something.
 */
function askedOf(turn: Turn, context: MeetingContext): string | null {
  for (let t = turn.index - 1; t >= Math.max(0, turn.index - ANSWERS_WITHIN); t--) {
    const said = context.turns[t].clauses;
    if (ASKS.test(said.join(' ')) || isQuestion(said[said.length - 1] ?? '')) {
      // "Can someone double check the register?" asks nobody in particular, whoever the talk was with.
      return ASKS_ANYONE.test(said[said.length - 1] ?? '') ? null : (context.listeners?.get(t) ?? null);
    }
    // Answered already ("Sorry, I can't." → "Then I'll do it myself"): the promise is not that answer.
    if (REPLIES.test(stripLeadingNoise(said[0] ?? ''))) return null;
  }
  return null;
}

/** A turn that answers or declines what was asked, or promises something itself. */
const REPLIES = /^(?:yes|yeah|yep|sure|ok|okay|no|nope|sorry|i'm sorry|i can't|i cannot|not sure|i'm not sure|i'll|i will|will do|on it|got it)\b/i;

const CLASS_ASSIGNMENT = /\b(?:for homework|for next (?:week|class|time|lesson)|for tomorrow|before next class|(?:your )?homework is(?: to)?|homework(?=\s*:)|(for (?:next )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)))[,:]?\s+(.+)$/iu;
/** "Homework: everyone reads chapter four and answers …": the class is told, the task is "read … and answer …". */
const GROUP_SUBJECT = /^(?:everyone|everybody|all of you|you all|each of you|every student|each student|every member|each member|all members)\s+(?:(?:needs to|has to|must|should)\s+)?(.+)$/iu;
/** "I want everyone to test the smoke alarms …", "all of you, get your hours into the system by Friday": the group told. */
const THE_GROUP = String.raw`(?:everyone|everybody|all of you|each of you)`;
const GROUP_TOLD = new RegExp(String.raw`(?:\bi (?:want|need|'d like|would like) ${THE_GROUP} to|(?:^|,\s*)${THE_GROUP},)\s+(.+)$`, 'iu');

function forTheGroup(phrase: string): string {
  const told = GROUP_SUBJECT.exec(phrase);
  if (!told) return phrase;
  const plain = (verb: string) => (startsWithVerb(`${verb.replace(/s$/i, '')} it`) ? verb.replace(/s$/i, '') : verb);
  return baseForm(told[1]).replace(/\band (\p{L}+s)\b/u, (_, verb: string) => `and ${plain(verb)}`);
}

/** "For your essay, pick one cause and argue it in two pages": an instruction to the class about its work. */
const FOR_YOUR_WORK = /^for (?:your|the|next week's|this week's) (?:essay|assignment|project|paper|report|presentation|lab|exercise|reading|homework)s?,?\s+(.+)$/iu;

function classAssignment(said: string): Item | undefined {
  // "And one for all of us: every member needs to …": what follows the colon.
  const text = said.replace(/^[^:]{1,40}:\s+(?=(?:every|each|all)\b)/iu, '');
  const toGroup = GROUP_TOLD.exec(text);
  // "I want everyone to …" is an instruction however it is timed; "everyone, …" only with its deadline.
  const wanted = toGroup !== null && /^i\b/i.test(toGroup[0]);
  if (toGroup && (wanted || deadlineIn(text)) && !isQuestion(text) && startsWithVerb(toGroup[1])) {
    // "Between now and Friday, I want everyone to …": the deadline said first belongs to the task.
    const before = deadlineIn(text.slice(0, toGroup.index));
    return taskItem(null, before && !deadlineIn(toGroup[1]) ? `${toGroup[1]} ${before.toLowerCase()}` : toGroup[1], { toOthers: true });
  }
  // "Everyone reads chapter four and answers questions one to ten by Monday": the group told, with its deadline.
  // "Every member needs to sell ten raffle tickets before the concert" too.
  if (GROUP_SUBJECT.test(text) && (deadlineIn(text) || STILL_TO_COME.test(text)) && !isQuestion(text)) {
    const told = forTheGroup(text);
    if (isBaseVerb(told.split(/\s+/)[0]) || startsWithVerb(told)) return taskItem(null, told);
  }
  const match = CLASS_ASSIGNMENT.exec(text);
  const told = match ? forTheGroup(match[2]) : undefined;
  // "For Thursday, read chapter six": the day is when it is due.
  if (told && isBaseVerb(told.split(/\s+/)[0])) return taskItem(null, match![1] && !deadlineIn(told) ? `${told} ${match![1].toLowerCase()}` : told);
  const work = FOR_YOUR_WORK.exec(text);
  return work && startsWithVerb(work[1]) ? taskItem(null, work[1], { toOthers: true }) : undefined;
}

// --- tasks -----------------------------------------------------------------------------------------------------------

/**
 * Heads that state no task: "I'll be honest", "I'll see", "I'll try", "can you hear me", and what is done in the
 * meeting itself ("I'll start with the numbers", "I'll explain the process", "I'll share my screen").
 */
const NOT_TASK_HEADS = new Set(
  `be see think try guess need hope have let keep wait say tell admit lie stop go come want like know remember forget
  mention hear bet figure probably likely maybe perhaps possibly hopefully not never is are was were start begin
  continue explain recap summarise summarize walk grab join hand mute unmute repeat introduce let's lets`.split(/\s+/),
);
/** Heads that are in the meeting when said of oneself ("I'll grab a coffee") and a task when said to someone else. */
const SELF_ONLY_HEADS = new Set(['grab', 'hand', 'walk']);
/** "tell the servers to stop offering the salmon", "tell them about the new hours": an instruction passed on. */
const TELL_TO = /^tell\s+(?!(?:you|me|us)\b)(?:\p{L}+\s+){1,3}(?:to|about|that)\s+\p{L}/iu;
const IN_MEETING = /^share (?:my|the|your|his|her) screen\b/i;
const HEDGE = /\b(?:probably|maybe|might|perhaps|possibly|hopefully|not sure|eventually|at some point|one of these days|some ?day)\b/i;
/** Words that carry no task: pronouns, determiners, prepositions, time words ("do that this week" has none). */
const EMPTY_WORDS = new Set(
  `i me my you your he him his she her it its we us our they them their this that these those one ones the a an some any
  to of for on in at by with from about into over after before up out off down back and or then there here all both
  each every today tonight tomorrow week weekend month year next last morning afternoon evening day days end soon
  later now asap first time again also just too well please thanks ok okay right done monday tuesday wednesday
  thursday friday saturday sunday january february march april may june july august september october november
  december lunch while bit care everything anything nothing`.split(/\s+/),
);

/**
 * The clauses said before the one being read, for what "it" and "them" stand for in a task (antecedents.ts). Set by
 * extractActionItems before each clause is read; the rules run synchronously, one clause at a time.
 */
let saidBefore: string[] = [];

function taskItem(
  owner: string | null,
  raw: string,
  options: { noun?: boolean; you?: string | null; toOthers?: boolean; before?: string } = {},
): Item | undefined {
  // `before`: what the clause says ahead of the task ("the walk-in fridge is too high, I'll log it").
  const task = withAntecedent(cleanTask(raw), options.before ? [...saidBefore, options.before] : saidBefore);
  // "let's ask Jo … when she's back": a task that waits on a condition is no commitment yet (action-item-check.ts).
  // firstPerson also asks it of the whole promise, before cleanTask cuts a "but …" that may hold the condition.
  return isTask(task, options) && !ON_A_CONDITION.test(task) ? { owner, task, you: options.you } : undefined;
}

/**
 * An item reads in the third person: "you" is the person spoken to and "me" the speaker, by name where the meeting
 * says who they are; otherwise "them" / "their" (an owner's own "your notes" are "their notes").
 */
function thirdPerson(item: Item): string {
  const you = item.you === item.owner ? null : (item.you ?? null);
  const me = item.me === item.owner ? null : (item.me ?? null);
  return item.task
    .replace(/\byourself\b/gi, item.you === item.owner ? 'themselves' : (you ?? 'them'))
    .replace(/\byours\b/gi, you ? `${you}'s` : 'theirs')
    .replace(/\byour\b/gi, you ? `${you}'s` : 'their')
    // "before you go" → "before they go": "you" before a verb is its subject.
    .replace(/\byou(?=\s+(?:are|were|have|had|can|could|will|would|should|need|want|go|get|leave|arrive|finish|start|come|do|did)\b)/gi, you ?? 'they')
    .replace(/\byou\b/gi, you ?? 'them')
    .replace(/\s*\b(?:myself|themselves)\b/gi, '')
    .replace(/\bmy\b/gi, item.me === item.owner && item.owner ? 'their' : me ? `${me}'s` : 'my')
    .replace(/\bme\b/gi, item.me === item.owner && item.owner ? 'them' : (me ?? 'me'));
}

const LEADING_ADVERBS = /^(?:(?:also|just|quickly|definitely|then|still|go ahead and|go and|make sure to|be sure to|try and)\s+)+/i;
const CUT_AT = [
  /\s+(?:but|because|since|although|though|otherwise|unless)\b.*$/i,
  // "… this weekend, if nobody minds": asking leave, not a condition of the task.
  /,?\s+(?:and\s+)?if (?:nobody|no one|anyone|anybody|that's|that is|it's|it is)\b.*$/i,
  /,?\s+(?:she|he|they)\s+(?:did|does|is|was|has|had|said|will|can|handles?|knows?)\b.*$/i,
  // "… tomorrow, he's over that way anyway": why, not what.
  /,\s*(?:she|he|they|it)(?:'s|'re|'ll|'d)\s.*$/i,
  /\s+and\s+(?:i|we|you)\s+.*$/i,
  /\s+(?:okay|ok|alright|all right)\b.*$/i,
  // "… by Wednesday, so we can publish Thursday": why, not what.
  /,\s*so (?:that )?(?:we|i|you|they|he|she)\b.*$/i,
  // "… this week Lena: send your notes": a word and a colon start another line (two segments read as one clause).
  /\s+[\p{L}'-]+:(?:\s.*)?$/iu,
  // "… before ten, I can't promise that": "I" or "we" after a comma starts another clause.
  /,\s*(?:i|we)(?:'ll|'m|'d|'ve)?\s.*$/i,
  // "check the invoices would it help if …": a question starts where a recogniser left out the full stop.
  /\s+(?:would|could|should|can|will|shall|do|does|did|is|are|was)\s+(?:it|i|we|you|they|he|she)\b.*$/i,
];
const TRAILING = /(?:[\s,]+(?:ok|okay|right|please|thanks|thank you|yeah|then|as well|too|and|or|but))+\s*$/i;

function cleanTask(raw: string): string {
  const spoken = raw.replace(/(?:^|[\s,]+)(?:um+|uh+|uhm|erm|er)\b[,.]?(?=\s|$)/giu, ' ');
  let task = leadingNoiseOff(spoken.replace(/\s+/g, ' ').trim()).replace(/[.!?,;:]+$/u, '').replace(LEADING_ADVERBS, '');
  for (const cut of CUT_AT) task = task.replace(cut, '');
  // "… by Friday, Nadia": the name said to someone is not part of the task.
  task = task.replace(/,\s*\p{Lu}[\p{L}'-]*\s*$/u, '');
  return task.replace(TRAILING, '').replace(/[.!?,;:]+$/u, '').trim();
}

/** Words that make "have X …" a task: "have the report ready", "have the edit done by Wednesday". */
const GOT_DONE = new Set(['ready', 'done', 'finished', 'complete', 'completed', 'sorted', 'fixed', 'signed', 'approved']);

function isTask(task: string, options: { noun?: boolean; toOthers?: boolean } = {}): boolean {
  const words = task.toLowerCase().match(/[\p{L}\p{N}'-]+/gu) ?? [];
  if (words.length < 2 || HEDGE.test(task)) return false;
  const head = words[0] ?? '';
  if (!options.noun) {
    if (head === 'have' && words[1] === 'a' && words[2] === 'look') return words.slice(3).some((w) => !EMPTY_WORDS.has(w));
    // "go over the statistics", "go through the prices": to review, a task; "go" alone is not.
    if (head === 'go' && (words[1] === 'over' || words[1] === 'through')) return words.slice(2).some((w) => !EMPTY_WORDS.has(w));
    // "have the slides ready by Monday": something to get done, not "have a chat".
    // "have two more quotes in by the end of next week", "have a draft on your desk Wednesday": due, so delivered.
    if (head === 'have' && (words.some((w) => GOT_DONE.has(w)) || deadlineIn(task) || CALENDAR_DAY.test(task))) return words.slice(1).some((w) => !EMPTY_WORDS.has(w) && !GOT_DONE.has(w));
    // "tell you a story" says nothing to do; "tell the servers to stop …" passes an instruction on.
    const passesOn = head === 'tell' && TELL_TO.test(task);
    if ((NOT_TASK_HEADS.has(head) && !passesOn && !(options.toOthers && SELF_ONLY_HEADS.has(head))) || IN_MEETING.test(task)) return false;
  }
  // Something concrete after the verb: "do that this week" has nothing; "get two quotes" has.
  const rest = options.noun ? words : words.slice(1);
  return rest.some((word) => !EMPTY_WORDS.has(word) && !/^\d+$/.test(word));
}

const CALENDAR_DAY = new RegExp(String.raw`\b${DAY}\b`, 'i');
const DEADLINE = new RegExp(
  String.raw`\b(?:between now and (?:${DAY}|the end of (?:the )?(?:day|week|month))|by (?:the )?(?:end of (?:the )?(?:day|week|month|year|quarter)|[\p{L}\d]+(?: [\p{L}\d]+)?)|this weekend|next weekend|over the weekend|this week|next week|today|tonight|tomorrow|(?:on|before|next|for) ${DAY}|(?:for|in|before) (?:january|february|march|april|may|june|july|august|september|october|november|december))\b`,
  'iu',
);

function deadlineIn(text: string): string | undefined {
  return DEADLINE.exec(text)?.[0];
}

// --- names -----------------------------------------------------------------------------------------------------------

/**
 * The owner a matched name span stands for, or undefined when it is not a person's name. A title stays with the name
 * ("Dr Patel"); `loose` accepts a word the lexicon does not know (a slot where someone is addressed); `capitalised`
 * accepts any capitalised word where a sentence does not start ("we agreed that Bill owns …": "bill" is also a noun).
 */
function nameIn(span: string, options: { loose: boolean; initial?: boolean; capitalised?: boolean }): string | undefined {
  const title = LEADING_TITLES.exec(span.trim())?.[0] ?? '';
  const personal = span.trim().slice(title.length).split(/\s+/).filter(Boolean);
  if (personal.length === 0 || personal.length > 2) return undefined;
  const initial = (options.initial ?? false) && title === '';
  const first =
    (options.loose ? isLooseName(personal[0]) : isStrictName(personal[0], initial)) ||
    (options.capitalised === true && !initial && isCapitalisedName(personal[0]));
  if (!first) return undefined;
  // A second word only as a capitalised surname ("Linda Park"): "park" alone is a verb to the lexicon.
  if (personal[1] && !isCapitalisedName(personal[1])) return undefined;
  return displayName(`${title}${personal.join(' ')}`.replace(/'s$/i, ''));
}

const LEADING_TITLES = new RegExp(String.raw`^(?:${TITLE}\s+)+`, 'iu');

/** Every match of `pattern` starting at a word boundary, leftmost first (a name span can start at any word). */
function* matchesAt(pattern: RegExp, text: string): Generator<RegExpExecArray> {
  const sticky = new RegExp(pattern.source, pattern.flags.replace('g', '') + 'y');
  for (const start of wordStarts(text)) {
    sticky.lastIndex = start;
    const match = sticky.exec(text);
    if (match) yield match;
  }
}

function wordStarts(text: string): number[] {
  return [...text.matchAll(/(?<![\p{L}\p{N}'-])[\p{L}]/gu)].map((match) => match.index);
}

// --- duplicates ------------------------------------------------------------------------------------------------------

/**
 * The same owner and (nearly) the same words: one item, the first said. A task said to be needed with nobody taking it
 * on (`untaken`) gives way to the same task that someone did take on, later.
 */
function dedupe(items: Item[]): Item[] {
  const kept: Array<Item & { words: Set<string> }> = [];
  for (const item of items) {
    const words = new Set((item.task.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !EMPTY_WORDS.has(w)));
    const at = kept.findIndex((other) => {
      if (!other.untaken && !item.untaken && (other.owner ?? '').toLowerCase() !== (item.owner ?? '').toLowerCase()) return false;
      return sameTask(words, other.words);
    });
    if (at === -1) kept.push({ ...item, words });
    else if (kept[at].untaken && !item.untaken) kept[at] = { ...item, words };
  }
  return kept.map(({ owner, task }) => ({ owner, task }));
}
