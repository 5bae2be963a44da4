// Fault test (docs/security.md, "Failures the service survives"): the object store becomes unreachable while a
// recording is ingested. The worker reaches S3 through a TCP relay this test can cut (every connection reset at once,
// as a dead endpoint). While S3 is down the transfer is retried and the recording stays `processing`; once S3 is back
// it ends `ready` with exactly one object; and a store that never comes back makes it `failed` only when the retry
// window ends (docs/decisions.md §7; here INGEST_RETRY_WINDOW is 10 s, which only NODE_ENV=test accepts (a minute
// elsewhere), and SHORT_OUTSIDE_STEP_TIMINGS (src/config.ts) retries the transfer 0.5 s doubling, capped at 2 s, instead
// of 5 s doubling: it is tried at about 0, 0.5, 1.5, 3.5 s, then every 2 s, and fails at the first attempt after 10 s,
// where the transfer's own policy would try at 0, 5 and 15 s and fail only then).
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { RecordingSchema } from '../../../src/modules/recordings/recording.entity.ts';
import { createRoom, createTenant, type TenantFixture } from '../../helpers/fixtures.ts';
import { createRecordingStack, spawnWorker, type RecordingStack, type WorkerProcess } from '../../helpers/recording-stack.ts';

// Long enough for the first test's outage (a few seconds) to end inside it, on a busy machine too: its next attempt
// comes at most 2 s after S3 is back.
const RETRY_WINDOW_SECONDS = 10;
let stack: RecordingStack;
let relay: Server;
let worker: WorkerProcess;
let s3Up = true;
let refused = 0;
const open = new Set<Socket>();

beforeAll(async () => {
  const target = new URL(process.env.S3_ENDPOINT!);
  relay = createServer((client) => {
    if (!s3Up) {
      refused += 1;
      return void client.resetAndDestroy();
    }
    const upstream = tcpConnect(Number(target.port), target.hostname);
    open.add(client);
    client.on('close', () => open.delete(client));
    client.pipe(upstream).pipe(client);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  stack = await createRecordingStack({ env: { INGEST_RETRY_WINDOW: String(RETRY_WINDOW_SECONDS), SHORT_OUTSIDE_STEP_TIMINGS: 'true' } });
  // The worker (only it) reaches S3 through the relay; it checks the buckets at start-up, so S3 is up then.
  worker = await spawnWorker({ ...stack.workerEnv, S3_ENDPOINT: `http://127.0.0.1:${(relay.address() as AddressInfo).port}` });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await stack?.close();
  for (const s of open) s.destroy();
  await new Promise<void>((resolve) => relay?.close(() => resolve()));
});

function cutS3(): void {
  s3Up = false;
  for (const s of open) s.resetAndDestroy(); // kept-alive connections die too
}

async function recordOnce(tenant: TenantFixture): Promise<{ id: string; roomId: string }> {
  const room = await createRoom(stack.t, tenant, { config: { recording_enabled: true } });
  const started = await stack.t.request.post(`/api/v1/rooms/${room.id}/recordings/start`).set(tenant.auth).expect(201);
  await stack.t.request.post(`/api/v1/rooms/${room.id}/recordings/stop`).set(tenant.auth).expect(200);
  return { id: started.body.data.id, roomId: room.id };
}

const statusOf = async (id: string) => (await stack.t.services.orm.em.fork().findOneOrFail(RecordingSchema, { id })).status;

test('S3 down during an ingestion: retried, still processing, then ready once S3 is back, one object stored', async () => {
  const tenant = await createTenant(stack.t);
  cutS3();
  const { id } = await recordOnce(tenant);
  // Several attempts meet the dead store (each activity attempt, and the SDK's own retries inside it).
  for (let i = 0; i < 200 && refused < 3; i++) await new Promise((r) => setTimeout(r, 100));
  expect(refused).toBeGreaterThanOrEqual(3);
  await new Promise((r) => setTimeout(r, 2500));
  expect(await statusOf(id)).toBe('processing');

  s3Up = true;
  await stack.ingestionResult(id);
  expect(await statusOf(id)).toBe('ready');
  const { store } = stack.t.services;
  expect(await store.list(store.bucket, `recordings/${tenant.id}/`)).toEqual([`recordings/${tenant.id}/${id}.wav`]);
}, 90_000);

test('S3 that never comes back: failed, only when the retry window has ended', async () => {
  const tenant = await createTenant(stack.t);
  cutS3();
  const before = refused;
  const startedAt = Date.now();
  const { id } = await recordOnce(tenant);
  // The ingestion starts once the provider's notification arrives: wait until it meets the dead store.
  for (let i = 0; i < 200 && refused === before; i++) await new Promise((r) => setTimeout(r, 100));
  // Still retrying half-way through the window: the recording waits in `processing`, it is not failed early.
  await new Promise((r) => setTimeout(r, (RETRY_WINDOW_SECONDS * 1000) / 2));
  expect(await statusOf(id)).toBe('processing');
  await expect(stack.ingestionResult(id)).rejects.toBeDefined();
  expect(Date.now() - startedAt).toBeGreaterThan(RETRY_WINDOW_SECONDS * 1000);
  expect(refused - before).toBeGreaterThanOrEqual(4);
  const failed = await stack.t.services.orm.em.fork().findOneOrFail(RecordingSchema, { id });
  expect(failed.status).toBe('failed');
  expect(failed.failureReason).toMatch(/retry window/);
  const { store } = stack.t.services;
  expect(await store.list(store.bucket, `recordings/${tenant.id}/`)).toEqual([]);
  s3Up = true;
}, 150_000);
