// Fault test: the worker process dies (SIGKILL) while it streams a recording to the transcription provider; a new
// worker takes over. Temporal notices the dead worker by its missing heartbeats, the transcribe activity runs again
// elsewhere, and the recording ends with exactly one transcript, completed (the activity overwrites its own row).
// SHORT_OUTSIDE_STEP_TIMINGS (src/config.ts): the dead worker is noticed after a 5 s heartbeat timeout and the step
// retried 0.5 s later, instead of 15 s and then TRANSCRIBE_RETRY's 10 s; and the run's next workflow task, queued for
// the dead worker that held the run, goes to the new one after 1 s (WORKER_STICKY_SCHEDULE_TO_START_TIMEOUT), not
// 10 s. What is proven is the same.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TranscriptSchema } from '../../../src/modules/transcripts/transcript.entity.ts';
import { transcriptionWorkflowId } from '../../../workflows/shared.ts';
import { createRoom, createTenant, patchConfig } from '../../helpers/fixtures.ts';
import { createRecordingStack, type RecordingStack } from '../../helpers/recording-stack.ts';
import { startedRun } from '../../helpers/handovers.ts';

const RECORDING_SECONDS = 600; // 8 kHz 16-bit mono: about 9.6 MB

let stack: RecordingStack;
let front: Server;
let target = '';
let uploads = 0;
let firstBytes: () => void;
const firstBytesSeen = new Promise<void>((resolve) => (firstBytes = resolve));

beforeAll(async () => {
  // Between the worker and the provider: the first upload is read slowly and never answered, so the worker is
  // killed with the transcription under way; later ones pass through to the development media server.
  front = createServer((req, res) => {
    const attempt = ++uploads;
    if (attempt === 1) {
      let received = 0;
      req.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > 1024 * 1024) firstBytes();
        req.pause();
        setTimeout(() => req.resume(), 25);
      });
      return;
    }
    const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  stack = await createRecordingStack({
    media: { recordingSeconds: RECORDING_SECONDS },
    env: { OPENAI_BASE_URL: `${frontUrl}/v1`, SHORT_OUTSIDE_STEP_TIMINGS: 'true', WORKER_STICKY_SCHEDULE_TO_START_TIMEOUT: '1' },
  });
  target = stack.media.url;
}, 120_000);

afterAll(async () => {
  await stack?.close();
  front?.closeAllConnections();
  await new Promise<void>((resolve) => front?.close(() => resolve()));
});

test('a worker killed mid-transcription: a new worker finishes it, exactly one completed transcript', async () => {
  const first = await stack.startWorker();
  const tenant = await createTenant(stack.t);
  // No post-meeting transcript: the only upload the front sees is the one queued below.
  await patchConfig(stack.t, tenant, { transcription_enabled: false });
  const room = await createRoom(stack.t, tenant, { config: { recording_enabled: true } });
  const started = await stack.t.request.post(`/api/v1/rooms/${room.id}/recordings/start`).set(tenant.auth).expect(201);
  await stack.t.request.post(`/api/v1/rooms/${room.id}/recordings/stop`).set(tenant.auth).expect(200);
  const recordingId = started.body.data.id as string;
  await stack.media.settled();
  await stack.ingestionResult(recordingId);

  const queued = await stack.t.request.post(`/api/v1/recordings/${recordingId}/transcribe`).set(tenant.auth).send({ room_id: room.id }).expect(202);
  const id = queued.body.transcript_id as string;
  await firstBytesSeen; // the upload is under way in the first worker
  await first.kill();
  expect(first.child.signalCode).toBe('SIGKILL');
  const mid = await stack.t.request.get(`/api/v1/transcription/${id}`).set(tenant.auth).expect(200);
  expect(mid.body.data.status).toBe('processing');

  await stack.startWorker();
  await (await startedRun(stack.temporal, transcriptionWorkflowId(id))).result();

  expect(uploads).toBeGreaterThanOrEqual(2); // the transcription really started over
  const rows = await stack.t.services.orm.em.fork().find(TranscriptSchema, { recording: recordingId });
  expect(rows.map((r) => [r.id, r.status])).toEqual([[id, 'completed']]);
  const got = await stack.t.request.get(`/api/v1/recordings/${recordingId}/transcript`).set(tenant.auth).expect(200);
  expect(got.body.data).toMatchObject({ id, status: 'completed' });
  expect(got.body.data.content.segments.length).toBeGreaterThan(0);
}, 180_000);
