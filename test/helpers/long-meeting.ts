// A one-hour meeting as a recogniser writes it (docs/decisions.md §9): about 9,500 words over 60 minutes, four speakers known
// only by their labels (speaker_0 … speaker_3), discussion that commits nobody to anything, and twelve commitments
// spread through it, three of them repeated in a recap at the end. Deterministic, so tests know the right answer.
import type { TranscriptSegmentOut } from '../../src/providers/types.ts';

export interface LongMeeting {
  segments: TranscriptSegmentOut[];
  text: string;
  words: number;
  /** The commitments as "Owner: task" (the task without its final period), in order; each once. */
  commitments: string[];
}

const NAMED: Array<[owner: string, task: string]> = [
  ['Dana', 'send the revised budget to finance by Friday'],
  ['Tom', 'write the release notes for version four'],
  ['Priya', 'book the venue for the customer workshop'],
  ['Sam', 'fix the login timeout reported by the support team'],
  ['Maria', 'collect the survey results before the board meeting'],
  ['Ken', 'update the onboarding guide with the new screenshots'],
  ['Lena', 'ask legal to review the data processing agreement'],
  ['Omar', 'prepare the hiring plan for the platform team by next Tuesday'],
  ['Julia', 'compare the two cloud offers and report back'],
];
/** Said by a speaker known only by its label: the owner is unknown. */
const UNNAMED: Array<[speaker: string, task: string]> = [
  ['speaker_2', 'draft the agenda for the planning day'],
  ['speaker_1', 'check the invoice numbers against the contract'],
  ['speaker_3', 'rename the shared folders to the new project names'],
];

const TOPICS = ['the budget', 'the release', 'customer onboarding', 'the hiring plan', 'the support backlog', 'the cloud costs'];
const FILLER = [
  'I looked at {t} again this morning and most of it is in line with what we expected last quarter',
  'the numbers for {t} moved a little but nothing that changes the overall picture for now',
  'there was a long thread about {t} on the mailing list and people seem mostly aligned',
  'my feeling is that {t} needs more time before anybody can say something definite about it',
  'the vendor said their part of {t} might slip by a week or so but that is their call',
  'last month the team already cleaned up a lot of the old issues around {t}',
  'one thing that came up with {t} is that the documentation is out of date in a few places',
  'honestly {t} went better than anyone predicted given how the start of the year looked',
  'if the numbers stay like this then {t} could be closed out before the summer',
  'I do not have a strong opinion on {t} but I am happy to go with what the group prefers',
  'the dashboard for {t} shows a small dip on Mondays which is probably just the weekend effect',
  'we talked about {t} with the customer advisory board and they asked good questions',
  'so to be honest the main risk with {t} is the dependency on the payments team',
  'it would be interesting to know how other companies handle {t} at this size',
  'the previous plan for {t} assumed two more people who never joined',
];

/** A deterministic pseudo-random sequence (a linear congruential generator), so the meeting never changes. */
function sequence(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % n;
  };
}

export function oneHourMeeting(): LongMeeting {
  const next = sequence(20);
  const sentences: Array<{ speaker: string; text: string }> = [];
  const say = (speaker: string, text: string) => sentences.push({ speaker, text });
  say('speaker_0', 'Good morning everyone, thanks for joining the monthly operations review.');
  const targetWords = 9_300;
  const commitmentEvery = Math.floor(targetWords / (NAMED.length + UNNAMED.length + 1));
  let words = 0;
  let nextCommitment = commitmentEvery;
  let named = 0;
  let unnamed = 0;
  while (words < targetWords) {
    const speaker = `speaker_${next(4)}`;
    const parts: string[] = [];
    for (let i = 0, n = 2 + next(2); i < n; i++) {
      const line = FILLER[next(FILLER.length)].replace('{t}', TOPICS[next(TOPICS.length)]);
      parts.push(`${line[0].toUpperCase()}${line.slice(1)}.`);
    }
    if (words >= nextCommitment && (named < NAMED.length || unnamed < UNNAMED.length)) {
      nextCommitment += commitmentEvery;
      if (named < NAMED.length && (named + unnamed) % 4 !== 3) {
        const [owner, task] = NAMED[named++];
        parts.push(`${owner} will ${task}.`);
      } else {
        const [label, task] = UNNAMED[unnamed++];
        say(label, `I will ${task}.`);
      }
    }
    const text = parts.join(' ');
    say(speaker, text);
    words += text.split(/\s+/).length;
  }
  say('speaker_0', `To recap, ${NAMED[0][0]} will ${NAMED[0][1]}. And ${NAMED[3][0]} will ${NAMED[3][1]}. Also ${NAMED[6][0]} will ${NAMED[6][1]}.`);
  say('speaker_1', 'Thanks everyone, see you next month.');

  const total = sentences.reduce((sum, s) => sum + s.text.split(/\s+/).length, 0);
  let at = 0;
  const segments = sentences.map(({ speaker, text }) => {
    const start = (at / total) * 3600;
    at += text.split(/\s+/).length;
    return { start: round(start), end: round((at / total) * 3600), speaker, text };
  });
  return {
    segments,
    text: segments.map((s) => s.text).join(' '),
    words: total,
    commitments: [...NAMED.slice(0, named).map(([owner, task]) => `${owner}: ${task}`), ...UNNAMED.slice(0, unnamed).map(([, task]) => task)],
  };
}

function round(value: number) {
  return Math.round(value * 100) / 100;
}
