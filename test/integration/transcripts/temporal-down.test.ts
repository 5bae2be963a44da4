// Queue Transcription answers only once its workflow is started: with Temporal unreachable it is 503 with Retry-After,
// and no `pending` transcript is left behind that nothing would ever process.
import { v7 as uuidv7 } from 'uuid';
import { RecordingSchema } from '../../../src/modules/recordings/recording.entity.ts';
import { TranscriptSchema } from '../../../src/modules/transcripts/transcript.entity.ts';
import { createRoom, createTenant } from '../../helpers/fixtures.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ TEMPORAL_ADDRESS: '127.0.0.1:1', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
});

afterAll(async () => {
  await t?.close();
});

test('Temporal unreachable: 503 SERVICE_UNAVAILABLE with Retry-After, and no transcript row', async () => {
  const tenant = await createTenant(t);
  const room = await createRoom(t, tenant);
  const em = t.services.orm.em.fork();
  const recording = em.create(RecordingSchema, {
    id: uuidv7(),
    tenant: tenant.id,
    room: room.id,
    status: 'ready',
    storageTier: 'primary',
    storageBucket: t.services.store.bucket,
    objectKey: `recordings/${tenant.id}/x.wav`,
    contentType: 'audio/wav',
    sizeBytes: 1000,
  });
  await em.flush();

  const answer = await t.request.post(`/api/v1/recordings/${recording.id}/transcribe`).set(tenant.auth).send({ room_id: room.id });
  expect(answer.status).toBe(503);
  expect(answer.body.error.code).toBe('SERVICE_UNAVAILABLE');
  expect(answer.headers['retry-after']).toBe('5');
  expect(await t.services.orm.em.fork().count(TranscriptSchema, { recording: recording.id })).toBe(0);
}, 60_000);
