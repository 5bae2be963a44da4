// The whole real stack for the pipeline benchmarks (bench/webhook-latency.ts, bench/burst.ts) and the drills
// (scripts/drills/postgres-outage.ts: it stops or pauses this PostgreSQL), started in a temporary
// folder that is removed at the end: PostgreSQL, the Temporal dev server and SeaweedFS (the launchers of
// scripts/stack/, as `npm run dev` and the test harness use them), the API (`node src/main.ts api`, listening on a
// port) and one or more workers (`node src/main.ts worker`), child processes with the development configuration; in
// this process the development media server (the provider, also the `openai` transcription provider) and a webhook
// receiver (test/helpers/webhook-receiver.ts: it checks the signature and the AsyncAPI payload schema).
//
// runBench() wraps a benchmark's main: it stops everything in reverse order at the end, on failure (after printing the
// end of the API's and the workers' logs, which go with the folder) and on Ctrl-C.
import { S3Client } from '@aws-sdk/client-s3';
import { Client, Connection } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../scripts/stack/ports.ts';
import { startPostgres, type PostgresServer } from '../scripts/stack/postgres.ts';
import { launch, tailOfFile, waitUntilReady, type ManagedProcess } from '../scripts/stack/process.ts';
import { startSeaweedfs, type SeaweedfsServer } from '../scripts/stack/seaweedfs.ts';
import { startTemporal, type TemporalServer } from '../scripts/stack/temporal.ts';
import { projectRoot } from '../scripts/tools.ts';
import { startDevMediaServer, type DevMediaServer } from '../dev/media-server/server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../test/helpers/webhook-receiver.ts';

export const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Everything this process started, stopped in reverse order (also on Ctrl-C). */
const cleanups: Array<() => Promise<unknown>> = [];
let cleaning: Promise<void> | undefined;
/** Folders whose api.log / worker*.log are shown when the benchmark fails. */
const logDirs: Array<{ dir: string; files: string[] }> = [];

export function onCleanup(stop: () => Promise<unknown>): void {
  cleanups.push(stop);
}

function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const stop of cleanups.splice(0).reverse()) await stop().catch((err) => log(`cleanup: ${String(err)}`));
  })();
  return cleaning;
}

/** Runs a benchmark's main, then stops everything; exits 1 (with the ends of the logs) when it failed. */
export async function runBench(main: () => Promise<void>): Promise<never> {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping everything`);
      void cleanup().then(() => process.exit(130));
    });
  }
  let exitCode = 0;
  try {
    await main();
  } catch (err) {
    log(`failed: ${(err as Error).stack ?? String(err)}`);
    for (const { dir, files } of logDirs) for (const file of files) log(`--- ${file} ---\n${tailOfFile(join(dir, file), 30)}`);
    exitCode = 1;
  } finally {
    await cleanup();
  }
  process.exit(exitCode);
}

export interface StackOptions {
  /** Names the temporary folder. */
  name: string;
  /** Every recording of the media server lasts this long (a WAV of that length). */
  recordingSeconds: number;
  /** PostgreSQL with fsync on (the default is a throw-away cluster with fsync off, as the tests use). */
  durable?: boolean;
  /** Worker processes (default 1). */
  workers?: number;
  /** Have each worker's Temporal SDK serve its Prometheus metrics (WORKER_TEMPORAL_METRICS_ADDRESS on loopback). */
  workerMetrics?: boolean;
  /** Added to the API's and the workers' environment (e.g. RATE_LIMIT_PER_MINUTE, the worker settings). */
  env?: Record<string, string>;
  /** A WAV file the media server serves as a room's recordings instead of tones (dev/media-server/server.ts). */
  audioFile?: (roomId: string) => string | undefined;
  /** The Temporal dev server's store: in memory (the tests' default here) or a SQLite file, as `npm run dev` keeps it. */
  temporalStore?: 'memory' | 'file';
  /** SQLite pragmas of the file store (scripts/stack/temporal.ts). */
  temporalPragmas?: Record<string, string>;
  /** Added to the Temporal dev server's environment (the Go runtime's GOGC, GOMAXPROCS). */
  temporalEnv?: Record<string, string>;
  /** Dynamic config values of the Temporal dev server (scripts/stack/temporal.ts). */
  temporalConfig?: Record<string, string>;
}

export interface Stack {
  root: string;
  apiUrl: string;
  databaseUrl: string;
  receiver: WebhookReceiver;
  media: DevMediaServer;
  temporal: Client;
  /** A few connections to the application's database, for reading rows. */
  db: pg.Pool;
  /** The application's PostgreSQL: stop() shuts it down (fast), start() starts it again on the same port and data. */
  postgres: { readonly port: number; stop(): Promise<void>; start(): Promise<void> };
  /** The object store the API and the workers use, and its recordings bucket. */
  s3: { client: S3Client; bucket: string };
  /** The SDK's `GET /metrics` of each worker (`temporal_*`), when workerMetrics was asked for. */
  workerMetricsUrls: string[];
  adminKey: string;
  webhookSecret: string;
  /** A JSON call to the API; throws unless it answers `expect`. */
  call(method: string, path: string, headers: Record<string, string>, body?: unknown, expect?: number): Promise<any>;
  /** A tenant whose post-meeting webhook asks for everything (recording, transcript, summary, action items). */
  createTenant(name: string, limits?: { max_concurrent_rooms?: number }): Promise<{ id: string; auth: Record<string, string> }>;
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const started = performance.now();
  const adminKey = `bench-admin-${randomBytes(12).toString('hex')}`;
  const upstreamSecret = `bench-upstream-${randomBytes(12).toString('hex')}`;
  const webhookSecret = `whsec_bench_${randomBytes(16).toString('hex')}`;
  const root = await mkdtemp(join(tmpdir(), `convene-bench-${options.name}-`));
  onCleanup(() => rm(root, { recursive: true, force: true }));
  await chmod(root, 0o755); // PostgreSQL runs as an unprivileged user when we are root
  const workerCount = options.workers ?? 1;
  const workerLog = (i: number) => (workerCount === 1 ? 'worker.log' : `worker-${i + 1}.log`);
  logDirs.push({ dir: root, files: ['api.log', ...Array.from({ length: workerCount }, (_, i) => workerLog(i))] });

  // --- the services -------------------------------------------------------------------------------------------
  const s3Keys = { accessKeyId: `bench-${randomBytes(6).toString('hex')}`, secretAccessKey: randomBytes(24).toString('base64url') };
  const buckets = { S3_BUCKET: 'convene-recordings', S3_ARCHIVE_BUCKET: 'convene-archive' };
  /** The running PostgreSQL (undefined while a drill has stopped it). */
  let postgresServer: PostgresServer | undefined;
  const postgresOptions = { dataDir: join(root, 'postgres'), password: randomBytes(12).toString('hex'), durable: options.durable ?? false };
  const results = await Promise.allSettled([
    startPostgres(postgresOptions),
    startTemporal({
      dataDir: join(root, 'temporal'),
      persistent: options.temporalStore === 'file',
      sqlitePragmas: options.temporalPragmas,
      env: options.temporalEnv,
      dynamicConfig: options.temporalConfig,
      uiPort: null,
      stopTimeoutMs: 2000,
    }),
    startSeaweedfs({ dataDir: join(root, 'seaweedfs'), ...s3Keys, buckets: Object.values(buckets), stopTimeoutMs: 300 }),
  ]);
  // PostgreSQL's cleanup stops whichever server runs at the end: a drill may have stopped and restarted it.
  for (const r of results.slice(1)) if (r.status === 'fulfilled') onCleanup(() => r.value.stop());
  if (results[0].status === 'fulfilled') postgresServer = results[0].value;
  onCleanup(async () => postgresServer?.stop());
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed.length > 0) throw new Error(`services did not start:\n${failed.map((f) => String(f.reason?.message ?? f.reason)).join('\n')}`);
  const port = postgresServer!.port;
  const postgres: Stack['postgres'] = {
    port,
    stop: async () => {
      const server = postgresServer;
      postgresServer = undefined;
      await server?.stop();
    },
    start: async () => {
      postgresServer ??= await startPostgres({ ...postgresOptions, port });
    },
  };
  const temporalServer = (results[1] as PromiseFulfilledResult<TemporalServer>).value;
  const s3 = (results[2] as PromiseFulfilledResult<SeaweedfsServer>).value;
  await postgresServer!.createDatabase('convene');
  const databaseUrl = postgresServer!.url('convene');
  log(`PostgreSQL, Temporal and SeaweedFS ready in ${((performance.now() - started) / 1000).toFixed(1)} s (${root})`);

  // --- receiver, media server, API, workers ---------------------------------------------------------------------
  const receiver = await startWebhookReceiver(webhookSecret);
  onCleanup(() => receiver.close());
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const media = await startDevMediaServer({
    webhookSecret: upstreamSecret,
    notifyUrl: `${apiUrl}/api/v1/webhooks/upstream/recording-ready`,
    recordingSeconds: options.recordingSeconds,
    ...(options.audioFile ? { audioFile: options.audioFile } : {}),
  });
  onCleanup(() => media.stop());

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
    ADMIN_API_KEY: adminKey,
    SECRETS_KEY: randomBytes(32).toString('base64'),
    UPSTREAM_API_URL: media.url,
    UPSTREAM_WEBHOOK_SECRET: upstreamSecret,
    OPENAI_BASE_URL: `${media.url}/v1`,
    OPENAI_TRANSCRIPTION_MODEL: 'whisper-1',
    TRANSCRIPTION_DEFAULT_PROVIDER: 'openai',
    // Recordings are downloaded from the development media server on loopback (docs/decisions.md §7).
    SSRF_ALLOW_LOOPBACK: 'true',
    ...options.env,
  };
  const app = (role: 'api' | 'worker', logFile: string, extra: NodeJS.ProcessEnv = {}): ManagedProcess => {
    const proc = launch({
      name: logFile.replace(/\.log$/, ''),
      command: process.execPath,
      args: [join(projectRoot, 'src', 'main.ts'), role],
      cwd: projectRoot,
      env: { ...env, ...extra },
      logFile: join(root, logFile),
      stopSignal: 'SIGTERM',
      stopTimeoutMs: 20_000,
    });
    onCleanup(() => proc.stop());
    return proc;
  };
  const api = app('api', 'api.log');
  await waitUntilReady(
    api,
    async () => {
      const res = await fetch(`${apiUrl}/readyz`);
      if (res.status !== 200) throw new Error(`readyz ${res.status}`);
    },
    { timeoutMs: 90_000, intervalMs: 250, logFile: join(root, 'api.log') },
  );
  const workerMetricsUrls: string[] = [];
  await Promise.all(
    Array.from({ length: workerCount }, async (_, i) => {
      const metricsPort = options.workerMetrics ? await freePort() : 0;
      if (metricsPort) workerMetricsUrls.push(`http://127.0.0.1:${metricsPort}/metrics`);
      const file = workerLog(i);
      const worker = app('worker', file, metricsPort ? { WORKER_TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${metricsPort}` } : {});
      await waitUntilReady(
        worker,
        async () => {
          if (!(await readFile(join(root, file), 'utf8')).includes('Convene worker polling')) throw new Error('not polling yet');
        },
        { timeoutMs: 120_000, intervalMs: 250, logFile: join(root, file) },
      );
    }),
  );
  log(`API on ${apiUrl} and ${workerCount} worker(s) polling, ${((performance.now() - started) / 1000).toFixed(1)} s after start`);

  const connection = await Connection.connect({ address: temporalServer.address });
  onCleanup(() => connection.close());
  const temporal = new Client({ connection, namespace: 'default' });
  const db = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  // An idle connection the server drops (a drill stopping PostgreSQL) emits 'error' on the pool; the next query reconnects.
  db.on('error', () => undefined);
  onCleanup(() => db.end());
  const s3Client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  onCleanup(async () => s3Client.destroy());

  const call: Stack['call'] = async (method, path, headers, body, expect = 200) => {
    const res = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json().catch(() => null)) as any;
    if (res.status !== expect) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };

  const createTenant: Stack['createTenant'] = async (name, limits) => {
    const admin = { 'X-Admin-Key': adminKey };
    const tenant = (await call('POST', '/api/v1/tenants', admin, { name }, 201)).data;
    if (limits) await call('PATCH', `/api/v1/tenants/${tenant.id}`, admin, limits);
    const auth = { 'X-API-Key': tenant.api_key as string };
    await call('PATCH', `/api/v1/tenants/${tenant.id}/config`, auth, {
      post_meeting_webhook: {
        enabled: true,
        url: receiver.url,
        secret: webhookSecret,
        include_recording: true,
        include_transcript: true,
        include_summary: true,
        include_action_items: true,
        transcription: { provider: 'openai' },
        ai: { provider: 'builtin' },
      },
    });
    return { id: tenant.id as string, auth };
  };

  return {
    root,
    apiUrl,
    databaseUrl,
    receiver,
    media,
    temporal,
    db,
    postgres,
    s3: { client: s3Client, bucket: buckets.S3_BUCKET },
    workerMetricsUrls,
    adminKey,
    webhookSecret,
    call,
    createTenant,
  };
}

/** The machine's load average from /proc/loadavg (1, 5, 15 min), as the benchmarks print it. */
export async function loadAverage(): Promise<string> {
  const text = await readFile('/proc/loadavg', 'utf8').catch(() => '');
  return text ? `load average ${text.split(' ').slice(0, 3).join(', ')}` : `load average ${loadavg().map((l) => l.toFixed(2)).join(', ')}`;
}

/** Median, nearest-rank p95, min and max. */
export function stats(values: number[]): { p50: number; p95: number; min: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return { p50: NaN, p95: NaN, min: NaN, max: NaN };
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  return { p50: median, p95: at(0.95), min: sorted[0], max: sorted[sorted.length - 1] };
}

export const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toString() : '–');
