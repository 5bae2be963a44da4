// Fault test: the worker process dies (SIGKILL) in the middle of an ingestion; a new worker takes over. Temporal
// notices the dead worker by its missing heartbeats, retries the transfer elsewhere, and the recording still ends
// `ready` with exactly one object in the store (the key is derived from the recording, stale parts are aborted).
// SHORT_OUTSIDE_STEP_TIMINGS (src/config.ts): the dead worker is noticed after a 5 s heartbeat timeout and the transfer
// retried 0.5 s later, instead of 15 s and then INGEST_TRANSFER_RETRY's 5 s; and the run's next workflow task, queued
// for the dead worker that held the run, goes to the new one after 1 s (WORKER_STICKY_SCHEDULE_TO_START_TIMEOUT), not
// 10 s. What is proven is the same.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RecordingSchema } from '../../../src/modules/recordings/recording.entity.ts';
import { createRoom, createTenant } from '../../helpers/fixtures.ts';
import { createRecordingStack, type RecordingStack } from '../../helpers/recording-stack.ts';

const RECORDING_SECONDS = 900; // 8 kHz 16-bit mono: about 14 MB
const THROTTLE_BYTES_PER_TICK = 64 * 1024; // every 25 ms: about 2.5 MB/s, so the first download takes ~6 s

let stack: RecordingStack;
let proxy: Server;
let target = '';
let downloads = 0;
let firstBytes: () => void;
const firstBytesSeen = new Promise<void>((resolve) => (firstBytes = resolve));

beforeAll(async () => {
  // Between the worker and the media server: slows the first download so the worker can be killed mid-transfer.
  proxy = createServer((req, res) => {
    const attempt = ++downloads;
    const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (attempt > 1) return void answer.pipe(res);
      let sent = 0;
      answer.on('data', (chunk: Buffer) => {
        answer.pause();
        res.write(chunk);
        sent += chunk.length;
        if (sent > 1024 * 1024) firstBytes();
        setTimeout(() => answer.resume(), (25 * chunk.length) / THROTTLE_BYTES_PER_TICK);
      });
      answer.on('end', () => res.end());
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  stack = await createRecordingStack({
    media: { recordingSeconds: RECORDING_SECONDS, publicUrl: proxyUrl },
    env: { SHORT_OUTSIDE_STEP_TIMINGS: 'true', WORKER_STICKY_SCHEDULE_TO_START_TIMEOUT: '1' },
  });
  target = stack.media.url;
});

afterAll(async () => {
  await stack?.close();
  proxy?.closeAllConnections();
  await new Promise<void>((resolve) => proxy?.close(() => resolve()));
});

test('a worker killed mid-ingestion: a new worker finishes it, ready, with exactly one object stored', async () => {
  const first = await stack.startWorker();
  const tenant = await createTenant(stack.t);
  const room = await createRoom(stack.t, tenant, { config: { recording_enabled: true } });
  const started = await stack.t.request.post(`/api/v1/rooms/${room.id}/recordings/start`).set(tenant.auth).expect(201);
  await stack.t.request.post(`/api/v1/rooms/${room.id}/recordings/stop`).set(tenant.auth).expect(200);
  const id = started.body.data.id as string;

  await firstBytesSeen; // the transfer is under way in the first worker
  await first.kill();
  expect(first.child.signalCode).toBe('SIGKILL');
  const mid = await stack.t.services.orm.em.fork().findOneOrFail(RecordingSchema, { id });
  expect(mid.status).toBe('processing');

  await stack.startWorker();
  await stack.ingestionResult(id);

  const upstream = stack.media.listRecordings(room.id)[0];
  const got = await stack.t.request.get(`/api/v1/recordings/${id}`).set(tenant.auth);
  expect(got.body.data).toMatchObject({ status: 'ready', size_bytes: upstream.size_bytes, duration_seconds: RECORDING_SECONDS });
  expect(downloads).toBeGreaterThanOrEqual(2); // the transfer really started over
  const { store } = stack.t.services;
  const objects = await store.list(store.bucket, `recordings/${tenant.id}/`);
  expect(objects).toEqual([`recordings/${tenant.id}/${id}.wav`]);
  expect(await store.head({ bucket: store.bucket, key: objects[0] })).toMatchObject({ sizeBytes: upstream.size_bytes });
}, 120_000);
