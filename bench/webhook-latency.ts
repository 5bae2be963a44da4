// Benchmark (not a test): how long after the media provider's `recording.ready` does the tenant's receiver have the
// `meeting.recording_ready` webhook? (Goal: p50 <= 3 s; results in BENCHMARKS.md, "Webhook latency".)
//
//   npx node bench/webhook-latency.ts [--runs 20] [--warmup 1] [--seconds 60] [--durable]
//
// Everything is real and started here (bench/stack.ts): PostgreSQL, Temporal, SeaweedFS, the API and one worker as child
// processes, the development media server and a signature-checking webhook receiver in this process. The tenant's
// webhook asks for the recording, the transcript, the builtin summary and the action items.
//
// Each run starts and stops a recording in one room (the media server makes every recording --seconds long: a 60 s WAV)
// and waits for its webhook. Latency = from the media server's first `recording.ready` notification attempt (its
// `notifications` log, taken just before the POST) to the receiver having read the whole webhook body. Both are in this
// process, on one clock. The split comes from Temporal (when the ingestion run started) and the rows the worker
// writes (ready_at, the transcript's completed_at, the delivery's created_at, the attempt's scheduled time); all the
// processes share the machine's clock. Runs are sequential; warm-up runs are reported but not counted.
// Results: BENCHMARKS.md.
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { ReceivedWebhook } from '../test/helpers/webhook-receiver.ts';
import { recordingIngestWorkflowId } from '../workflows/shared.ts';
import { fmt, loadAverage, log, runBench, sleep, startStack, stats } from './stack.ts';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '1' },
    seconds: { type: 'string', default: '60' },
    /** PostgreSQL with fsync on (the default is a throw-away cluster with fsync off, as the tests use). */
    durable: { type: 'boolean', default: false },
  },
});
const RUNS = positive('runs');
const WARMUP = Number(args.warmup);
const SECONDS = positive('seconds');
/** Per run: from the stop to the webhook. Bounded so a stuck pipeline ends the benchmark instead of hanging it. */
const RUN_TIMEOUT_MS = 120_000;

function positive(name: 'runs' | 'seconds'): number {
  const value = Number(args[name]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}

interface Run {
  recordingId: string;
  /** ms from the notification to each point; the last is the receiver having the webhook. */
  ingestStarted: number;
  ready: number;
  transcriptCompleted: number;
  deliveryCreated: number;
  attemptScheduled: number;
  received: number;
  notificationAttempts: number;
  problems: string[];
}

async function main(): Promise<void> {
  const uptimeBefore = await loadAverage();
  const { receiver, media, temporal, db, call, createTenant } = await startStack({
    name: 'latency',
    recordingSeconds: SECONDS,
    durable: args.durable,
  });
  const { auth } = await createTenant('Latency bench');
  const room = await call('POST', '/api/v1/rooms', auth, { name: 'latency-bench', config: { recording_enabled: true } }, 201);
  const roomId: string = room.id;

  // --- the runs -------------------------------------------------------------------------------------------------
  const oneRun = async (): Promise<Run> => {
    const before = receiver.received.length;
    const recordingId: string = (await call('POST', `/api/v1/rooms/${roomId}/recordings/start`, auth, undefined, 201)).data.id;
    await call('POST', `/api/v1/rooms/${roomId}/recordings/stop`, auth);
    const deadline = Date.now() + RUN_TIMEOUT_MS;
    let hook: ReceivedWebhook | undefined;
    while (!hook) {
      if (Date.now() > deadline) throw new Error(`no webhook for recording ${recordingId} within ${RUN_TIMEOUT_MS / 1000} s`);
      hook = receiver.received.slice(before).find((h) => h.json?.recording?.id === recordingId);
      if (!hook) await sleep(20);
    }
    // The attempt row is written just after the receiver answered: wait for it (bounded) before the next run.
    let attempt: { attempted_at: Date; status: string } | undefined;
    while (!attempt && Date.now() < deadline) {
      const rows = await db.query(
        `SELECT a.attempted_at, a.status FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
         WHERE d.recording_id = $1 AND d.resent_from IS NULL AND a.attempt = 1`,
        [recordingId],
      );
      attempt = rows.rows[0];
      if (!attempt) await sleep(20);
    }
    const rec = (await db.query('SELECT upstream_recording_id, ready_at FROM recordings WHERE id = $1', [recordingId])).rows[0];
    const transcript = (await db.query(`SELECT completed_at FROM transcripts WHERE recording_id = $1 AND origin = 'post_meeting'`, [recordingId])).rows[0];
    const delivery = (await db.query('SELECT created_at FROM webhook_deliveries WHERE recording_id = $1 AND resent_from IS NULL', [recordingId])).rows[0];
    const notifications = media.notifications.filter((n) => n.recordingId === rec.upstream_recording_id);
    const first = notifications.find((n) => n.attempt === 1);
    if (!first) throw new Error(`no notification logged for recording ${recordingId}`);
    const t0 = Date.parse(first.at);
    const ingest = await temporal.workflow.getHandle(recordingIngestWorkflowId(recordingId)).describe();
    const since = (d: Date | null | undefined) => (d ? d.getTime() - t0 : NaN);

    const problems: string[] = [];
    if (!hook.signatureValid) problems.push('signature did not verify');
    if (hook.schemaErrors) problems.push(`payload schema: ${hook.schemaErrors}`);
    const body = hook.json;
    if (!body.transcript?.text) problems.push('no transcript');
    if (typeof body.summary !== 'string' || body.summary.length === 0) problems.push('no summary');
    if (!Array.isArray(body.action_items) || body.action_items.length === 0) problems.push('no action items');
    if (!body.recording?.download_url) problems.push('no recording link');
    if ((body.errors ?? []).length > 0) problems.push(`errors[]: ${JSON.stringify(body.errors)}`);
    if (body.recording?.duration_seconds !== SECONDS) problems.push(`recording lasts ${body.recording?.duration_seconds} s`);
    if (attempt?.status !== 'succeeded') problems.push(`attempt 1 is ${attempt?.status ?? 'not recorded'}`);
    if (notifications.length !== 1) problems.push(`${notifications.length} notification attempts`);

    return {
      recordingId,
      ingestStarted: since(ingest.startTime),
      ready: since(rec.ready_at),
      transcriptCompleted: since(transcript?.completed_at),
      deliveryCreated: since(delivery?.created_at),
      attemptScheduled: since(attempt?.attempted_at),
      received: hook.receivedAt - t0,
      notificationAttempts: notifications.length,
      problems,
    };
  };

  const runs: Run[] = [];
  const warm: Run[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const run = await oneRun();
    const label = i < WARMUP ? `warm-up ${i + 1}` : `run ${i - WARMUP + 1}/${RUNS}`;
    (i < WARMUP ? warm : runs).push(run);
    log(
      `${label}: ${run.received} ms (ready ${run.ready}, transcript ${run.transcriptCompleted}, delivery ${run.deliveryCreated}, ` +
        `attempt ${run.attemptScheduled}) load ${loadavg()[0].toFixed(2)}${run.problems.length ? ` PROBLEMS: ${run.problems.join('; ')}` : ''}`,
    );
    await sleep(500); // let the run's tail (attempt bookkeeping, workflow completions) finish before the next one
  }
  const uptimeAfter = await loadAverage();

  // --- report ---------------------------------------------------------------------------------------------------
  const stages: Array<[string, (r: Run) => number]> = [
    ['notification → webhook received (total)', (r) => r.received],
    ['notification → recording ready', (r) => r.ready],
    ['ready → webhook received', (r) => r.received - r.ready],
    ['  notification → ingestion run started (API)', (r) => r.ingestStarted],
    ['  ingestion started → ready (download, S3 upload, mark)', (r) => r.ready - r.ingestStarted],
    ['  ready → transcript completed', (r) => r.transcriptCompleted - r.ready],
    ['  transcript → delivery created (summary, complete)', (r) => r.deliveryCreated - r.transcriptCompleted],
    ['  delivery created → attempt 1 scheduled', (r) => r.attemptScheduled - r.deliveryCreated],
    ['  attempt scheduled → receiver has the body', (r) => r.received - r.attemptScheduled],
  ];
  const lines = [
    '',
    `webhook latency: ${runs.length} runs (+${warm.length} warm-up), ${SECONDS} s recordings, PostgreSQL ${args.durable ? 'durable' : 'fsync=off'}`,
    `Node ${process.version}, ${cpus().length} CPUs; uptime before: ${uptimeBefore}; after: ${uptimeAfter}`,
    '',
    '| ms | p50 | p95 | min | max |',
    '|---|---|---|---|---|',
    ...stages.map(([name, pick]) => {
      const s = stats(runs.map(pick));
      return `| ${name} | ${fmt(s.p50)} | ${fmt(s.p95)} | ${fmt(s.min)} | ${fmt(s.max)} |`;
    }),
    '',
    `all runs (ms): ${runs.map((r) => fmt(r.received)).join(', ')}`,
    `warm-up (ms): ${warm.map((r) => fmt(r.received)).join(', ') || '–'}`,
    `runs with a problem: ${runs.filter((r) => r.problems.length > 0).length}; notification attempts > 1: ${runs.filter((r) => r.notificationAttempts > 1).length}`,
    `goal p50 <= 3000 ms: ${stats(runs.map((r) => r.received)).p50 <= 3000 ? 'met' : 'NOT met'}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

await runBench(main);
