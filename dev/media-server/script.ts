// The scripted "meeting" behind each generated recording: a deterministic transcript derived from the recording
// id, so the transcription endpoint, tests and the post-meeting pipeline all see the same words, including a couple
// of sentences that read as action items.

import { createHash } from 'node:crypto';

export interface ScriptedSegment {
  id: number;
  /** Seconds from the start of the recording; `end` never exceeds the duration. */
  start: number;
  end: number;
  speaker: string;
  text: string;
}

export interface ScriptedTranscript {
  language: 'en';
  durationSeconds: number;
  /** The segments' texts joined by single spaces. */
  text: string;
  segments: ScriptedSegment[];
  /** The work assigned in the meeting, one sentence each ("Bob will send the slides by Friday."). */
  actionItems: string[];
  speakers: string[];
}

/** Speaker, what they say, and the action item the sentence assigns, if any. */
type Line = [speaker: string, text: string, actionItem?: string];

const NAMES = ['Alice', 'Bob', 'Carol', 'Dave', 'Erin', 'Frank'];
const TOPICS = ['budget review', 'mobile launch', 'customer onboarding', 'quarterly roadmap', 'hiring plan'];
const ACTIONS = [
  'will send the slides by Friday.',
  'will schedule the follow-up meeting for next week.',
  'will update the project plan before Monday.',
  'will share the meeting notes with the team tomorrow.',
];

export function scriptedTranscript(input: {
  recordingId: string;
  meetingName?: string | null;
  durationSeconds: number;
}): ScriptedTranscript {
  const pick = picker(input.recordingId);
  const [host, second, third] = pickDistinct(NAMES, 3, pick);
  const topic = TOPICS[pick(TOPICS.length)];
  const [firstAction, secondAction] = pickDistinct(ACTIONS, 2, pick);
  const meeting = input.meetingName ? `the ${input.meetingName} meeting` : "today's meeting";
  const lines: Line[] = [
    [host, `Good morning everyone, and welcome to ${meeting}.`],
    [second, `Thanks ${host}. The ${topic} is on track for the next release.`],
    [third, `I went through the ${topic} numbers yesterday and they look good.`],
    [host, `Great. We still need to agree on the timeline for the ${topic}.`],
    [second, 'I can prepare a proposal for that.'],
    [host, `To recap, ${second} ${firstAction}`, `${second} ${firstAction}`],
    [host, `And ${third} ${secondAction}`, `${third} ${secondAction}`],
    [third, 'Sounds good. Thanks everyone.'],
  ];
  return timed(lines, input.durationSeconds);
}

/** For audio the server did not generate: a transcript that says so. */
export function genericTranscript(durationSeconds: number): ScriptedTranscript {
  return timed(
    [
      ['A', 'This recording was not produced by the development media server.'],
      ['A', 'Its transcript is a placeholder of the same length as the audio.'],
    ],
    durationSeconds,
  );
}

function timed(lines: Line[], durationSeconds: number): ScriptedTranscript {
  const step = durationSeconds / lines.length;
  const segments = lines.map(([speaker, text], id) => ({
    id,
    start: round2(id * step),
    end: id === lines.length - 1 ? durationSeconds : round2((id + 1) * step),
    speaker,
    text,
  }));
  return {
    language: 'en',
    durationSeconds,
    text: segments.map((segment) => segment.text).join(' '),
    segments,
    actionItems: lines.flatMap(([, , action]) => (action ? [action] : [])),
    speakers: [...new Set(lines.map(([speaker]) => speaker))],
  };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function picker(seed: string): (n: number) => number {
  const digest = createHash('sha256').update(seed).digest();
  let index = 0;
  return (n) => digest[index++ % digest.length] % n;
}

function pickDistinct<T>(pool: readonly T[], count: number, pick: (n: number) => number): T[] {
  const left = [...pool];
  return Array.from({ length: count }, () => left.splice(pick(left.length), 1)[0]);
}
