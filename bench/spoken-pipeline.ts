// Opt-in check (not a test; it needs the team's speech tool): the spoken corpus's meetings through the whole pipeline,
// as a tenant integrating Convene sees them. Each meeting's WAV (rendered by `real-asr.sh corpus`) is served by the
// development media server as the recording of a room whose participants are the script's speakers; the room records
// and stops; the signed `recording.ready` notification brings the WAV into S3; post-meeting processing transcribes it
// with the real recogniser (Whisper tiny.en behind `real-asr.sh start`: no speakers, so the voices label them,
// src/providers/voice-labels.ts), analyses it with the builtin analyser and the room's participants, and delivers the
// signed webhook. Prints, per meeting and in all, whether every webhook was complete (signature, payload schema,
// transcript, summary, no errors), how many voices the stored transcript has, and precision and recall (loose and with
// the owner) of its action items against the script's labels, scored on the text this run heard.
//
//   real-asr.sh start            (the team's speech tool, outside this repository: test/fixtures/meetings/README.md)
//   npx node bench/spoken-pipeline.ts --rendered DIR [--set held-out|tuned|all] [--asr-url http://127.0.0.1:8765/v1]
//
// Everything else is started here (bench/stack.ts). Results: BENCHMARKS.md ("Meetings spoken and heard by a real
// recogniser").
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { ReceivedWebhook } from '../test/helpers/webhook-receiver.ts';
import { loadSpokenCorpus, scoreMeeting, total, type CorpusMeeting, type MeetingScore } from '../test/helpers/analyser-scoring.ts';
import { log, runBench, sleep, startStack } from './stack.ts';

const { values: args } = parseArgs({
  options: {
    rendered: { type: 'string' },
    set: { type: 'string', default: 'held-out' },
    'asr-url': { type: 'string', default: 'http://127.0.0.1:8765/v1' },
  },
});
if (!args.rendered) throw new Error('--rendered DIR is required: the folder `real-asr.sh corpus` wrote the WAVs to');
const RENDERED = args.rendered;
/** A meeting of about a minute through a recogniser that takes one request at a time. */
const MEETING_TIMEOUT_MS = 300_000;

async function main(): Promise<void> {
  const meetings = loadSpokenCorpus().filter((m) => args.set === 'all' || m.set === args.set);
  const audio = new Map<string, string>();
  const { receiver, db, call, createTenant } = await startStack({
    name: 'spoken',
    recordingSeconds: 60,
    audioFile: (roomId) => audio.get(roomId),
    env: { OPENAI_BASE_URL: args['asr-url'], OPENAI_MAX_CONCURRENCY: '1', OPENAI_TIMEOUT_MS: '600000' },
  });
  const { auth } = await createTenant('Spoken corpus');
  const scores: MeetingScore[] = [];
  let complete = 0;
  for (const meeting of meetings) {
    const started = performance.now();
    const room = await call('POST', '/api/v1/rooms', auth, { name: meeting.id, config: { recording_enabled: true } }, 201);
    audio.set(room.id, join(RENDERED, `${meeting.id}.wav`));
    for (const speaker of new Set((meeting.script ?? []).map((line) => line.speaker))) {
      await call('POST', `/api/v1/rooms/${room.id}/participants`, auth, { display_name: speaker }, 201);
    }
    const before = receiver.received.length;
    const recordingId: string = (await call('POST', `/api/v1/rooms/${room.id}/recordings/start`, auth, undefined, 201)).data.id;
    await call('POST', `/api/v1/rooms/${room.id}/recordings/stop`, auth);
    const hook = await webhookFor(recordingId, before);
    const problems = problemsOf(hook);
    if (problems.length === 0) complete++;
    const row = (await db.query(`SELECT content FROM transcripts WHERE recording_id = $1 AND origin = 'post_meeting'`, [recordingId])).rows[0];
    const segments: CorpusMeeting['segments'] = row?.content?.segments ?? [];
    const score = scoreMeeting({ ...meeting, segments }, { summary: hook.json?.summary ?? '', actionItems: hook.json?.action_items ?? [] });
    scores.push(score);
    log(
      `${meeting.id}: webhook in ${((performance.now() - started) / 1000).toFixed(1)} s, ${segments.length} segments, ` +
        `${new Set(segments.map((s) => s.speaker)).size} voices, ${score.extracted} items (loose ${score.correctLoose}, with owner ${score.correct} ` +
        `of ${score.expected})${problems.length ? `; PROBLEMS: ${problems.join('; ')}` : ''}`,
    );
  }
  const t = total(scores);
  log(
    `${args.set}: ${meetings.length} meetings, ${complete} webhooks complete; ${t.extracted} items for ${t.expected} commitments; ` +
      `loose P ${t.loose.precision.toFixed(2)} R ${t.loose.recall.toFixed(2)}; with owner P ${t.precision.toFixed(2)} R ${t.recall.toFixed(2)}`,
  );

  async function webhookFor(recordingId: string, before: number): Promise<ReceivedWebhook> {
    const deadline = Date.now() + MEETING_TIMEOUT_MS;
    for (;;) {
      const hook = receiver.received.slice(before).find((h) => h.json?.recording?.id === recordingId);
      if (hook) return hook;
      if (Date.now() > deadline) throw new Error(`no webhook for recording ${recordingId} within ${MEETING_TIMEOUT_MS / 1000} s`);
      await sleep(100);
    }
  }
}

/** What a tenant would find wrong with the webhook. */
function problemsOf(hook: ReceivedWebhook): string[] {
  const problems: string[] = [];
  if (!hook.signatureValid) problems.push('signature did not verify');
  if (hook.schemaErrors) problems.push(`payload schema: ${hook.schemaErrors}`);
  const body = hook.json;
  if (!body?.transcript?.text) problems.push('no transcript');
  if (typeof body?.summary !== 'string' || body.summary.length === 0) problems.push('no summary');
  if (!Array.isArray(body?.action_items)) problems.push('no action items list');
  if (!body?.recording?.download_url) problems.push('no recording link');
  if ((body?.errors ?? []).length > 0) problems.push(`errors[]: ${JSON.stringify(body.errors)}`);
  return problems;
}

await runBench(main);
