// Benchmark (not a test): how long after the media provider's `recording.ready` does the tenant's receiver have the
// `meeting.recording_ready` webhook? (Issue 9, outcome 7; goal p50 <= 3 s.)
//
//   npx node bench/webhook-latency.ts [--runs 20] [--warmup 1] [--seconds 60] [--durable]
//
// Everything is real and started here, in a temporary folder removed at the end: PostgreSQL, the Temporal dev server
// and SeaweedFS (the launchers of scripts/stack/, as `npm run dev` and the test harness use them), the API
// (`node src/main.ts api`, listening on a port) and one worker (`node src/main.ts worker`), both child processes with
// the development configuration; in this process the development media server (the provider, also the `openai`
// transcription provider) and a webhook receiver (test/helpers/webhook-receiver.ts: it checks the signature and the
// AsyncAPI payload schema). The tenant's webhook asks for the recording, the transcript, the builtin summary and the
// action items.
//
// Each run starts and stops a recording in one room (the media server makes every recording --seconds long: a 60 s WAV)
// and waits for its webhook. Latency = from the media server's first `recording.ready` notification attempt (its
// `notifications` log, taken just before the POST) to the receiver having read the whole webhook body. Both are in this
// process, on one clock. The split comes from Temporal (when the ingestion run started) and the rows the worker
// writes (ready_at, the transcript's completed_at, the delivery's created_at, the attempt's scheduled time); all the
// processes share the machine's clock. Runs are sequential; warm-up runs are reported but not counted.
// Results: BENCHMARKS.md.
import { Client, Connection } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freePort } from '../scripts/stack/ports.ts';
import { startPostgres, type PostgresServer } from '../scripts/stack/postgres.ts';
import { launch, tailOfFile, waitUntilReady, type ManagedProcess } from '../scripts/stack/process.ts';
import { startSeaweedfs, type SeaweedfsServer } from '../scripts/stack/seaweedfs.ts';
import { startTemporal, type TemporalServer } from '../scripts/stack/temporal.ts';
import { projectRoot } from '../scripts/tools.ts';
import { startDevMediaServer, type DevMediaServer } from '../src/upstream/dev-media-server.ts';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../test/helpers/webhook-receiver.ts';
import { recordingIngestWorkflowId } from '../workflows/shared.ts';

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

const ADMIN_KEY = `bench-admin-${randomBytes(12).toString('hex')}`;
const UPSTREAM_SECRET = `bench-upstream-${randomBytes(12).toString('hex')}`;
const WEBHOOK_SECRET = `whsec_bench_${randomBytes(16).toString('hex')}`;

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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

/** Everything this process started, stopped in reverse order (also on Ctrl-C). */
const cleanups: Array<() => Promise<unknown>> = [];
let cleaning: Promise<void> | undefined;
let logsDir: string | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const stop of cleanups.splice(0).reverse()) await stop().catch((err) => log(`cleanup: ${String(err)}`));
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping everything`);
    void cleanup().then(() => process.exit(130));
  });
}

async function main(): Promise<void> {
  const uptimeBefore = await uptime();
  const started = performance.now();
  const root = await mkdtemp(join(tmpdir(), 'convene-bench-latency-'));
  logsDir = root;
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  await chmod(root, 0o755); // PostgreSQL runs as an unprivileged user when we are root

  // --- the services -------------------------------------------------------------------------------------------
  const s3Keys = { accessKeyId: `bench-${randomBytes(6).toString('hex')}`, secretAccessKey: randomBytes(24).toString('base64url') };
  const buckets = { S3_BUCKET: 'convene-recordings', S3_ARCHIVE_BUCKET: 'convene-archive' };
  const results = await Promise.allSettled([
    startPostgres({ dataDir: join(root, 'postgres'), password: randomBytes(12).toString('hex'), durable: args.durable }),
    startTemporal({ dataDir: join(root, 'temporal'), persistent: false, uiPort: null, stopTimeoutMs: 2000 }),
    startSeaweedfs({ dataDir: join(root, 'seaweedfs'), ...s3Keys, buckets: Object.values(buckets), stopTimeoutMs: 300 }),
  ]);
  for (const r of results) if (r.status === 'fulfilled') cleanups.push(() => r.value.stop());
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed.length > 0) throw new Error(`services did not start:\n${failed.map((f) => String(f.reason?.message ?? f.reason)).join('\n')}`);
  const postgres = (results[0] as PromiseFulfilledResult<PostgresServer>).value;
  const temporalServer = (results[1] as PromiseFulfilledResult<TemporalServer>).value;
  const s3 = (results[2] as PromiseFulfilledResult<SeaweedfsServer>).value;
  await postgres.createDatabase('convene');
  const databaseUrl = postgres.url('convene');
  log(`PostgreSQL, Temporal and SeaweedFS ready in ${((performance.now() - started) / 1000).toFixed(1)} s (${root})`);

  // --- receiver, media server, API, worker ----------------------------------------------------------------------
  const receiver: WebhookReceiver = await startWebhookReceiver(WEBHOOK_SECRET);
  cleanups.push(() => receiver.close());
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const media: DevMediaServer = await startDevMediaServer({
    webhookSecret: UPSTREAM_SECRET,
    notifyUrl: `${apiUrl}/api/v1/webhooks/upstream/recording-ready`,
    recordingSeconds: SECONDS,
  });
  cleanups.push(() => media.stop());

  // The development configuration `npm run dev` gives the API and the worker (scripts/dev.ts).
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    PORT: String(apiPort),
    PUBLIC_BASE_URL: apiUrl,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalServer.address,
    TEMPORAL_NAMESPACE: 'default',
    S3_ENDPOINT: s3.endpoint,
    S3_REGION: s3.region,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    ...buckets,
    ADMIN_API_KEY: ADMIN_KEY,
    SECRETS_KEY: randomBytes(32).toString('base64'),
    UPSTREAM_API_URL: media.url,
    UPSTREAM_WEBHOOK_SECRET: UPSTREAM_SECRET,
    OPENAI_BASE_URL: `${media.url}/v1`,
    OPENAI_TRANSCRIPTION_MODEL: 'whisper-1',
    TRANSCRIPTION_DEFAULT_PROVIDER: 'openai',
  };
  const app = (role: 'api' | 'worker'): ManagedProcess => {
    const proc = launch({
      name: role,
      command: process.execPath,
      args: [join(projectRoot, 'src', 'main.ts'), role],
      cwd: projectRoot,
      env,
      logFile: join(root, `${role}.log`),
      stopSignal: 'SIGTERM',
      stopTimeoutMs: 20_000,
    });
    cleanups.push(() => proc.stop());
    return proc;
  };
  const api = app('api');
  await waitUntilReady(
    api,
    async () => {
      const res = await fetch(`${apiUrl}/readyz`);
      if (res.status !== 200) throw new Error(`readyz ${res.status}`);
    },
    { timeoutMs: 90_000, intervalMs: 250, logFile: join(root, 'api.log') },
  );
  const worker = app('worker');
  await waitUntilReady(
    worker,
    async () => {
      if (!(await readFile(join(root, 'worker.log'), 'utf8')).includes('Convene worker polling')) throw new Error('not polling yet');
    },
    { timeoutMs: 120_000, intervalMs: 250, logFile: join(root, 'worker.log') },
  );
  log(`API on ${apiUrl} and one worker polling, ${((performance.now() - started) / 1000).toFixed(1)} s after start`);

  const connection = await Connection.connect({ address: temporalServer.address });
  cleanups.push(() => connection.close());
  const temporal = new Client({ connection, namespace: 'default' });
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  cleanups.push(() => db.end());

  // --- the tenant -----------------------------------------------------------------------------------------------
  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown, expect = 200) => {
    const res = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json().catch(() => null)) as any;
    if (res.status !== expect) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const tenant = (await call('POST', '/api/v1/tenants', { 'X-Admin-Key': ADMIN_KEY }, { name: 'Latency bench' }, 201)).data;
  const auth = { 'X-API-Key': tenant.api_key as string };
  await call('PATCH', `/api/v1/tenants/${tenant.id}/config`, auth, {
    post_meeting_webhook: {
      enabled: true,
      url: receiver.url,
      secret: WEBHOOK_SECRET,
      include_recording: true,
      include_transcript: true,
      include_summary: true,
      include_action_items: true,
      transcription: { provider: 'openai' },
      ai: { provider: 'builtin' },
    },
  });
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
  const uptimeAfter = await uptime();

  // --- report ---------------------------------------------------------------------------------------------------
  const stats = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
    const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    return { p50: median, p95: at(0.95), min: sorted[0], max: sorted[sorted.length - 1] };
  };
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
  const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toString() : '–');
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

async function uptime(): Promise<string> {
  const text = await readFile('/proc/loadavg', 'utf8').catch(() => '');
  return text ? `load average ${text.split(' ').slice(0, 3).join(', ')}` : `load average ${loadavg().map((l) => l.toFixed(2)).join(', ')}`;
}

let exitCode = 0;
try {
  await main();
} catch (err) {
  log(`failed: ${(err as Error).stack ?? String(err)}`);
  // The logs go with the temporary folder: show their ends first.
  for (const role of ['api', 'worker']) if (logsDir) log(`--- ${role}.log ---\n${tailOfFile(join(logsDir, `${role}.log`), 30)}`);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
