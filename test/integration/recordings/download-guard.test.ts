// Both download links go through the address guard of outgoing webhooks (docs/decisions.md §7): without
// SSRF_ALLOW_LOOPBACK, a link on loopback (here the development media server's own) is refused, and the recording fails
// at once with the guard's reason, no retry schedule against a forbidden address. The real app, the development media
// server, a real worker process with the setting off.
import { RecordingSchema } from '../../../src/modules/recordings/recording.entity.ts';
import { signUpstream } from '../../../src/security/signatures.ts';
import { createRoom, createTenant, type TenantFixture } from '../../helpers/fixtures.ts';
import { createRecordingStack, WEBHOOK_SECRET, type RecordingStack } from '../../helpers/recording-stack.ts';

const PATH = '/api/v1/webhooks/upstream/recording-ready';
const REFUSED = 'the download was refused by the address guard: URL host 127.0.0.1 is a loopback address';
let stack: RecordingStack;
let tenant: TenantFixture;

beforeAll(async () => {
  stack = await createRecordingStack({ env: { SSRF_ALLOW_LOOPBACK: 'false' } });
  await stack.startWorker();
  tenant = await createTenant(stack.t);
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

const reload = (id: string) => stack.t.services.orm.em.fork().findOneOrFail(RecordingSchema, { id });

async function notify(body: string) {
  await stack.t.request.post(PATH).set('Content-Type', 'application/json').set('X-Upstream-Signature', signUpstream(WEBHOOK_SECRET, body)).send(body).expect(202);
  return stack.t.services.orm.em.fork().findOneOrFail(RecordingSchema, { upstreamRecordingId: JSON.parse(body).recording_id });
}

test("the notification's link on a forbidden address: the recording fails with the guard's reason", async () => {
  const room = await createRoom(stack.t, tenant);
  const upstream = stack.media.seedRecording({ meetingId: room.id, durationSeconds: 2 });
  const recording = await notify(stack.media.notificationFor(upstream.id).body);
  await expect(stack.ingestionResult(recording.id)).rejects.toThrow();
  const row = await reload(recording.id);
  expect([row.status, row.failureReason]).toEqual(['failed', REFUSED]);
  expect(row.storageBucket).toBeNull(); // nothing was stored
}, 60_000);

test('a fresh link from the provider on a forbidden address: the same', async () => {
  const room = await createRoom(stack.t, tenant);
  const upstream = stack.media.seedRecording({ meetingId: room.id, durationSeconds: 2 });
  // The notification's link has expired, so the provider's fresh one (also on loopback) is the one tried.
  const recording = await notify(stack.media.notificationFor(upstream.id, { urlExpiresAt: new Date(Date.now() - 60_000) }).body);
  await expect(stack.ingestionResult(recording.id)).rejects.toThrow();
  const row = await reload(recording.id);
  expect([row.status, row.failureReason]).toEqual(['failed', REFUSED]);
}, 60_000);
