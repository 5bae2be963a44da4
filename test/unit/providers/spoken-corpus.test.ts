// The builtin analyser on the spoken corpus (test/fixtures/meetings/spoken: meetings spoken by a speech synthesiser and
// heard by a real Whisper recogniser, docs/decisions.md §9 "judged on real meetings"). Only the held-out half's floor
// is asserted, loose and with the owner; the tuned half and the unseen meetings (written after the rules, never tuned
// on) are printed. bench/analyser-corpus.ts prints
// the same figures; BENCHMARKS.md has them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeTranscript } from '../../../src/providers/ai-builtin.ts';
import { loadSpokenCorpus, missReason, requestOf, scoreMeeting, scriptAsTranscript, total } from '../../helpers/analyser-scoring.ts';

/**
 * The held-out figures when the rules were last changed (BENCHMARKS.md, spoken corpus: 0.85 / 0.67 loose; with the
 * owner 0.41 / 0.33 from the transcript alone, 0.62 / 0.49 with the room's participants), less a margin of about 0.05:
 * the transcript alone, and with the room's participants as post-meeting processing gives them
 * (src/modules/post-meeting/). The segments carry the voice labels the transcription step gives
 * (src/providers/voice-labels.ts).
 */
const HELD_OUT_FLOOR = { loose: { precision: 0.8, recall: 0.62 }, owner: { precision: 0.36, recall: 0.28 } };
const HELD_OUT_FLOOR_WITH_ROOM = { loose: { precision: 0.8, recall: 0.62 }, owner: { precision: 0.57, recall: 0.44 } };

/**
 * The held-out half's scripts as the transcript (no recogniser: what was said, speakers told apart perfectly), with the
 * room's participants: 0.90 / 0.86 loose and with the owner when the rules were last changed (BENCHMARKS.md), less
 * about 0.05. The same rules on the recogniser's text score far lower (above): the gap is the recogniser's.
 */
const HELD_OUT_FLOOR_AS_WRITTEN = { loose: { precision: 0.85, recall: 0.81 }, owner: { precision: 0.85, recall: 0.81 } };

const meetings = loadSpokenCorpus();

type Floor = { loose: { precision: number; recall: number }; owner: { precision: number; recall: number } };

/** Every set's figures printed; only the held-out half's asserted, against `floor`. */
function printAndCheckHeldOut(scored: ReturnType<typeof scoreMeeting>[], what: string, floor: Floor): void {
  for (const set of ['tuned', 'held-out', 'unseen'] as const) {
    const t = total(scored.filter((m) => m.set === set));
    console.log(
      `builtin on ${t.meetings.length} ${set} ${what}: loose P ${t.loose.precision.toFixed(2)} R ${t.loose.recall.toFixed(2)}, ` +
        `with owner P ${t.precision.toFixed(2)} R ${t.recall.toFixed(2)}`,
    );
  }
  const held = total(scored.filter((m) => m.set === 'held-out'));
  expect(held.loose.precision).toBeGreaterThanOrEqual(floor.loose.precision);
  expect(held.loose.recall).toBeGreaterThanOrEqual(floor.loose.recall);
  expect(held.precision).toBeGreaterThanOrEqual(floor.owner.precision);
  expect(held.recall).toBeGreaterThanOrEqual(floor.owner.recall);
}
const scores = meetings.map((meeting) => scoreMeeting(meeting, analyzeTranscript(requestOf(meeting))));
const withRoom = meetings.map((meeting) => scoreMeeting(meeting, analyzeTranscript(requestOf(meeting, { participants: true }))));

test('the spoken corpus: at least 30 meetings heard by the recogniser, half held out, some with no commitments', () => {
  expect(meetings.length).toBeGreaterThanOrEqual(30);
  expect(meetings.filter((m) => m.set === 'held-out').length).toBeGreaterThanOrEqual(15);
  expect(meetings.filter((m) => m.action_items.length === 0).length).toBeGreaterThanOrEqual(3);
  // Heard, not typed: every segment is the recogniser's, every label one the transcription step gives (by voice).
  expect(meetings.every((m) => m.segments.length > 0 && m.segments.every((s) => /^speaker_\d+$/.test(s.speaker)))).toBe(true);
  expect(meetings.filter((m) => new Set(m.segments.map((s) => s.speaker)).size > 1).length).toBeGreaterThanOrEqual(25);
});

test('held-out half: precision and recall, loose and with the owner, stay above their floor', () => {
  for (const [how, scored, floor] of [
    ['transcript alone', scores, HELD_OUT_FLOOR],
    ["with the room's participants", withRoom, HELD_OUT_FLOOR_WITH_ROOM],
  ] as const) {
    printAndCheckHeldOut(scored, `spoken meetings, ${how}`, floor);
  }
});

test('no item is ever owned by a recogniser label, and none repeats', () => {
  for (const meeting of meetings) {
    const items = analyzeTranscript(requestOf(meeting)).actionItems;
    expect(items.filter((item) => /^(?:speaker[ _-]?\d+|[A-Z]):/i.test(item))).toEqual([]);
    expect(new Set(items).size).toBe(items.length);
  }
});

test('the held-out scripts as written (no recogniser in the way): precision and recall stay above their floor', () => {
  const scored = meetings.map(scriptAsTranscript).map((meeting) => scoreMeeting(meeting, analyzeTranscript(requestOf(meeting, { participants: true }))));
  printAndCheckHeldOut(scored, 'scripts as written', HELD_OUT_FLOOR_AS_WRITTEN);
});

test('no rule names a meeting of the corpus: no source file holds a meeting\'s id', () => {
  const root = join(import.meta.dirname, '..', '..', '..');
  const sources = ['src', 'workflows'].flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => ({ file: join(dir, file), text: readFileSync(join(root, dir, file), 'utf8') })),
  );
  expect(sources.length).toBeGreaterThan(50);
  // A meeting's number as a word ("r111"), alone or starting its full id ("r111-teachers-planning").
  const id = new RegExp(String.raw`\b(?:${meetings.map((meeting) => /^[a-z]\d+/.exec(meeting.id)![0]).join('|')})\b`, 'g');
  const naming = sources.flatMap(({ file, text }) => (text.match(id) ?? []).map((found) => `${file}: ${found}`));
  expect(naming).toEqual([]);
});

test('a miss is put down to the recogniser or to the analyser from what the transcript holds', () => {
  const transcript = 'Tarik, can you call the client? Sure, I will phone them. We need new balls.';
  const item = { owner: 'Tariq', keywords: ['call', 'client'] };
  expect(missReason({ owner: 'Tariq', keywords: ['counter', 'offer'] }, transcript, [])).toBe('task words lost');
  expect(missReason(item, transcript, ['Order twenty balls'])).toBe('no item has its words');
  expect(missReason(item, transcript, ['Call the client'])).toBe('owner never written');
  expect(missReason(item, `${transcript} Thanks, Tariq.`, ['Call the client'])).toBe('wrong owner, name written');
  expect(missReason({ owner: null, keywords: ['balls'] }, transcript, ['Tarik: order new balls'])).toBe('owner given, none said');
});
