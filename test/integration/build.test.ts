// The production path the Dockerfile takes: `npm run build`, then `node dist/main.js api` and `... worker` with
// NODE_ENV=production, against the harness's PostgreSQL, Temporal and SeaweedFS. The build goes to a temporary
// folder (scripts/build.ts --out) so a developer's dist/ is left alone; the processes run from there, not from src/.
import { Client, Connection } from '@temporalio/client';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { emptyRoomWorkflowId } from '../../workflows/shared.ts';
import { freePort } from '../../scripts/stack/ports.ts';
import { createTestDatabase, type TestDatabase } from '../harness/database.ts';

const root = resolve(import.meta.dirname, '../..');

interface Running {
  child: ChildProcess;
  output: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(out: string, role: 'api' | 'worker', env: Record<string, string>, ready: string): Promise<Running> {
  // From the build folder, with nothing of the source tree on its path (node_modules is linked in, as in the image).
  const child = spawn(process.execPath, [join(out, 'main.js'), role], { cwd: out, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  return new Promise((resolveStart, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(ready)) resolveStart({ child, output: () => output, exit });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exit.then(({ code }) => reject(new Error(`${role} exited (${code}) before "${ready}":\n${output}`)));
  });
}

async function stop(running: Running): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  running.child.kill('SIGTERM');
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 30_000);
  const result = await running.exit;
  clearTimeout(timer);
  return result;
}

let out: string;
let db: TestDatabase;
let api: Running | undefined;
let worker: Running | undefined;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'convene-build-'));
  // Without the type check: npm test's static checks type-check the same sources, and the emitted files are the same.
  const build = spawnSync(process.execPath, ['scripts/build.ts', '--out', out, '--skip-typecheck'], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
  symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'), 'dir');
  db = await createTestDatabase();
}, 300_000);

afterAll(async () => {
  for (const running of [api, worker]) if (running && running.child.exitCode === null) running.child.kill('SIGKILL');
  await db?.drop();
  rmSync(out, { recursive: true, force: true });
});

test('node dist/main.js api and worker: ready, serve a request, run a workflow, stop gracefully', async () => {
  const [port, workerMetricsPort] = [await freePort(), await freePort()];
  const adminKey = randomBytes(16).toString('hex');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    PORT: String(port),
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
    TEMPORAL_TASK_QUEUE: `build-test-${randomUUID()}`,
    S3_ENDPOINT: process.env.S3_ENDPOINT!,
    S3_REGION: process.env.S3_REGION!,
    S3_ACCESS_KEY_ID: process.env.S3_ACCESS_KEY_ID!,
    S3_SECRET_ACCESS_KEY: process.env.S3_SECRET_ACCESS_KEY!,
    SECRETS_KEY: randomBytes(32).toString('base64'),
    ADMIN_API_KEY: adminKey,
    UPSTREAM_WEBHOOK_SECRET: randomBytes(16).toString('hex'),
    WORKER_METRICS_PORT: String(workerMetricsPort),
  };
  api = await start(out, 'api', env, 'Convene API listening');
  worker = await start(out, 'worker', env, 'Convene worker polling');
  const base = `http://127.0.0.1:${port}`;

  const ready = await fetch(`${base}/readyz`);
  expect(ready.status).toBe(200);
  expect(await ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', temporal: 'ok', storage: 'ok' } });

  // A request that writes: a tenant (admin key), then a room with its API key.
  const tenantRes = await fetch(`${base}/api/v1/tenants`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Admin-Key': adminKey },
    body: JSON.stringify({ name: 'Built' }),
  });
  expect(tenantRes.status).toBe(201);
  const tenant = ((await tenantRes.json()) as { data: { api_key: string } }).data;
  const roomRes = await fetch(`${base}/api/v1/rooms`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': tenant.api_key },
    body: JSON.stringify({ name: 'built-room' }),
  });
  expect(roomRes.status).toBe(201);
  const room = (await roomRes.json()) as { id: string };

  // The compiled worker runs the compiled workflows: the room's empty-room timer gets a completed workflow task.
  const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS });
  try {
    const handle = new Client({ connection }).workflow.getHandle(emptyRoomWorkflowId(room.id));
    const deadline = Date.now() + 30_000;
    const completedTasks = async () => {
      const history = await handle.fetchHistory().catch(() => ({ events: [] }));
      return (history.events ?? []).filter((event) => event.workflowTaskCompletedEventAttributes).length;
    };
    while ((await completedTasks()) === 0) {
      if (Date.now() > deadline) throw new Error(`the worker completed no workflow task of the room's timer:\n${worker.output()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await connection.close();
  }

  // Production logs are JSON lines; the worker's metrics endpoint answers.
  const firstLine = api.output().split('\n').find((line) => line.trim());
  expect(() => JSON.parse(firstLine!)).not.toThrow();
  const workerMetrics = await fetch(`http://127.0.0.1:${workerMetricsPort}/metrics`);
  expect(workerMetrics.status).toBe(200);
  expect(await workerMetrics.text()).toContain('convene_process_cpu_seconds_total');

  // SIGTERM: both drain and exit 0.
  expect(await stop(api)).toEqual({ code: 0, signal: null });
  expect(await stop(worker)).toEqual({ code: 0, signal: null });
  expect(api.output()).toContain('shutting down');
  expect(worker.output()).not.toContain('error during shutdown');
}, 180_000);
