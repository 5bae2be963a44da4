// Fault test (issue 10): the Temporal server restarts while a recording is being ingested. A private, persistent
// Temporal dev server (the harness's is shared by every test file) serves the app and a real worker process; the
// worker's download is held mid-ingestion, Temporal is stopped and started again on the same port and database, and
// the ingestion still finishes `ready` with exactly one object, without restarting the API or the worker.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTemporal, type TemporalServer } from '../../../scripts/stack/temporal.ts';
import { RecordingSchema } from '../../../src/modules/recordings/recording.entity.ts';
import { createRoom, createTenant } from '../../helpers/fixtures.ts';
import { createRecordingStack, type RecordingStack, type WorkerProcess } from '../../helpers/recording-stack.ts';

let dir: string;
let temporal: TemporalServer;
let stack: RecordingStack;
let worker: WorkerProcess;
let proxy: Server;
let target = '';
let release: () => void = () => {};
const released = new Promise<void>((resolve) => (release = resolve));
let downloadSeen: () => void = () => {};
const downloading = new Promise<void>((resolve) => (downloadSeen = resolve));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'convene-temporal-fault-'));
  temporal = await startTemporal({ dataDir: dir, persistent: true, uiPort: null, stopTimeoutMs: 5000 });
  // Between the worker and the media server: the first download waits until the test releases it.
  proxy = createServer(async (req, res) => {
    downloadSeen();
    await released;
    const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  stack = await createRecordingStack({
    env: { TEMPORAL_ADDRESS: temporal.address },
    media: { publicUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` },
  });
  target = stack.media.url;
  worker = await stack.startWorker();
}, 120_000);

afterAll(async () => {
  release();
  await worker?.stop();
  await stack?.close();
  proxy?.closeAllConnections();
  await new Promise<void>((resolve) => proxy?.close(() => resolve()));
  await temporal?.stop();
  await rm(dir, { recursive: true, force: true });
});

test('Temporal restarted mid-ingestion: the ingestion finishes ready, nothing restarted but Temporal', async () => {
  const tenant = await createTenant(stack.t);
  const room = await createRoom(stack.t, tenant, { config: { recording_enabled: true } });
  const started = await stack.t.request.post(`/api/v1/rooms/${room.id}/recordings/start`).set(tenant.auth).expect(201);
  await stack.t.request.post(`/api/v1/rooms/${room.id}/recordings/stop`).set(tenant.auth).expect(200);
  const id = started.body.data.id as string;

  await downloading; // the ingestion workflow is running and its transfer activity is under way
  expect((await stack.t.services.orm.em.fork().findOneOrFail(RecordingSchema, { id })).status).toBe('processing');
  const address = temporal.address;
  await temporal.stop();
  await new Promise((r) => setTimeout(r, 1000));
  temporal = await startTemporal({ dataDir: dir, persistent: true, uiPort: null, stopTimeoutMs: 5000, port: Number(address.split(':').pop()) });
  expect(temporal.address).toBe(address);
  release();

  await stack.ingestionResult(id);
  const recording = await stack.t.services.orm.em.fork().findOneOrFail(RecordingSchema, { id });
  expect(recording.status).toBe('ready');
  const { store } = stack.t.services;
  expect(await store.list(store.bucket, `recordings/${tenant.id}/`)).toEqual([`recordings/${tenant.id}/${id}.wav`]);
  expect(worker.child.exitCode).toBeNull(); // the same worker process carried on
}, 120_000);
