// What the recording tests need around the real app: the development media server (the provider), the app listening
// on a real port (the media server POSTs its notifications there), and a real worker process (`node src/main.ts
// worker`) on a task queue of this test file's own, so parallel test files never take each other's tasks.
import type { Client } from '@temporalio/client';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { recordingIngestWorkflowId } from '../../workflows/shared.ts';
import { startDevMediaServer, type DevMediaServer, type DevMediaServerOptions } from '../../dev/media-server/server.ts';
import { createHttpServer } from '../../src/http/server.ts';
import { createTemporalClient } from '../../src/temporal/client.ts';
import { startedRun } from './handovers.ts';
import { createTestApp, type TestApp } from './test-app.ts';

export const WEBHOOK_SECRET = 'test-upstream-webhook-secret';

export interface RecordingStack {
  t: TestApp;
  media: DevMediaServer;
  /** The app's base URL (a real listening server). */
  baseUrl: string;
  taskQueue: string;
  temporal: Client;
  /** Environment a worker process needs to serve this stack. */
  workerEnv: Record<string, string>;
  startWorker(): Promise<WorkerProcess>;
  /** Resolves with the ingestion workflow's result (or rejects with its failure). */
  ingestionResult(recordingId: string): Promise<unknown>;
  close(): Promise<void>;
}

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  /** SIGKILL: the process dies mid-task, as in a crash. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export async function createRecordingStack(options: { media?: Partial<DevMediaServerOptions>; env?: Record<string, string> } = {}): Promise<RecordingStack> {
  let handler: RequestListener = (_req, res) => res.writeHead(503).end();
  const server: Server = createHttpServer((req, res) => handler(req, res)); // as src/main.ts serves the API
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const media = await startDevMediaServer({
    webhookSecret: WEBHOOK_SECRET,
    notifyUrl: `${baseUrl}/api/v1/webhooks/upstream/recording-ready`,
    processingDelayMs: 20,
    notifyRetryDelaysMs: [0, 200, 500],
    ...options.media,
  });
  const taskQueue = `recordings-test-${randomUUID()}`;
  const env = {
    // The worker downloads from the development media server, on loopback (docs/decisions.md §7).
    SSRF_ALLOW_LOOPBACK: 'true',
    UPSTREAM_API_URL: media.url,
    UPSTREAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
    TEMPORAL_TASK_QUEUE: taskQueue,
    PUBLIC_BASE_URL: baseUrl,
    ...options.env,
  };
  const t = await createTestApp(env);
  handler = t.app;
  // The app's own kind of client: its close ends the calls in flight before the channel closes (src/temporal/client.ts).
  const temporalClient = createTemporalClient(t.config.temporal);
  const temporal = temporalClient.client;
  const workers = new Set<WorkerProcess>();
  const workerEnv: Record<string, string> = {
    ...pick(process.env, ['PATH', 'HOME', 'S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'TEMPORAL_ADDRESS']),
    ...env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: t.databaseUrl,
  };

  return {
    t,
    media,
    baseUrl,
    taskQueue,
    temporal,
    workerEnv,
    async startWorker() {
      const worker = await spawnWorker(workerEnv);
      workers.add(worker);
      return worker;
    },
    // Started by the hand-over relay a moment after the request that recorded it (docs/decisions.md §15): wait for the run.
    ingestionResult: async (recordingId) => (await startedRun(temporal, recordingIngestWorkflowId(recordingId))).result(),
    async close() {
      for (const worker of workers) await worker.stop();
      await media.stop();
      await temporalClient.close();
      await t.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A worker polls within a few seconds even on a busy machine. */
const WORKER_START_LIMIT_MS = 45_000;

/** `node src/main.ts worker`, resolved once it logs that it polls. */
export async function spawnWorker(env: Record<string, string>): Promise<WorkerProcess> {
  // The run's workflow bundle (test/harness/global-setup.ts), unless the caller chose: no webpack per worker; and npm
  // test's compile cache (scripts/test.ts), so a worker reuses the code earlier ones compiled.
  const withBundle = { ...pick(process.env, ['WORKFLOW_BUNDLE_PATH', 'NODE_COMPILE_CACHE']), ...env };
  const child = spawn(process.execPath, ['src/main.ts', 'worker'], { env: withBundle, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    // A worker that neither polls nor exits fails the test with what it printed, instead of holding it to its limit.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker not polling after ${WORKER_START_LIMIT_MS} ms:\n${output}`));
    }, WORKER_START_LIMIT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Convene worker polling')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} before polling:\n${output}`));
    });
  });
  return {
    child,
    output: () => output,
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function pick(env: NodeJS.ProcessEnv, names: string[]): Record<string, string> {
  return Object.fromEntries(names.filter((n) => env[n] !== undefined).map((n) => [n, env[n]!]));
}
