// The notification's temporary `url` is where the recording is downloaded from (docs/decisions.md §7): kept sealed with the
// recording (never in workflow history), read by the transfer activity; the provider's REST API only when that link
// has expired or answers 401/403/404/410. The real app, the development media server (whose REST API can be made not
// to know a recording), a real worker process.
import { RecordingSchema } from '../../../src/modules/recordings/recording.entity.ts';
import { signUpstream } from '../../../src/security/signatures.ts';
import { createRoom, createTenant, type TenantFixture } from '../../helpers/fixtures.ts';
import { createRecordingStack, WEBHOOK_SECRET, type RecordingStack } from '../../helpers/recording-stack.ts';

const PATH = '/api/v1/webhooks/upstream/recording-ready';
let stack: RecordingStack;
let tenant: TenantFixture;

beforeAll(async () => {
  stack = await createRecordingStack();
  await stack.startWorker();
  tenant = await createTenant(stack.t);
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

/** Sends a notification body as the provider would: the raw bytes, signed. */
async function notify(body: string) {
  await stack.t.request.post(PATH).set('Content-Type', 'application/json').set('X-Upstream-Signature', signUpstream(WEBHOOK_SECRET, body)).send(body).expect(202);
  return stack.t.services.orm.em.fork().findOneOrFail(RecordingSchema, { upstreamRecordingId: JSON.parse(body).recording_id });
}

const reload = (id: string) => stack.t.services.orm.em.fork().findOneOrFail(RecordingSchema, { id });

test("a recording the provider's REST API answers 404 for is ingested from the notification's link", async () => {
  const room = await createRoom(stack.t, tenant);
  const upstream = stack.media.seedRecording({ meetingId: room.id, durationSeconds: 3, unlisted: true });
  expect((await fetch(`${stack.media.url}/v1/recordings/${upstream.id}`)).status).toBe(404); // the API does not know it
  const { body } = stack.media.notificationFor(upstream.id);
  const url = JSON.parse(body).url as string;

  const recording = await notify(body);
  // Sealed in the row: neither the link nor its signature is readable there.
  expect(recording.sourceSealed).toEqual(expect.any(String));
  expect(recording.sourceSealed).not.toContain(new URL(url).searchParams.get('sig')!);
  await stack.ingestionResult(recording.id);

  const got = await stack.t.request.get(`/api/v1/recordings/${recording.id}`).set(tenant.auth).expect(200);
  expect(got.body.data).toMatchObject({ status: 'ready', duration_seconds: 3, size_bytes: JSON.parse(body).size_bytes });
  expect((await reload(recording.id)).sourceSealed).toBeNull(); // the link is not kept once the file is stored
}, 60_000);

test("an expired link falls back to the provider's fresh one", async () => {
  const room = await createRoom(stack.t, tenant);
  const upstream = stack.media.seedRecording({ meetingId: room.id, durationSeconds: 2 });
  const { body } = stack.media.notificationFor(upstream.id, { urlExpiresAt: new Date(Date.now() - 60_000) });
  expect((await fetch(JSON.parse(body).url)).status).toBe(403); // the link itself is no good any more

  const recording = await notify(body);
  await stack.ingestionResult(recording.id);
  expect((await reload(recording.id)).status).toBe('ready');
}, 60_000);

test("a link the media host refuses (403) falls back to the provider's fresh one", async () => {
  const room = await createRoom(stack.t, tenant);
  const upstream = stack.media.seedRecording({ meetingId: room.id, durationSeconds: 2 });
  const notification = JSON.parse(stack.media.notificationFor(upstream.id).body);
  const link = new URL(notification.url);
  link.searchParams.set('sig', '0'.repeat(64)); // not expired by its own account, but refused
  const recording = await notify(JSON.stringify({ ...notification, url: link.href }));
  await stack.ingestionResult(recording.id);
  expect((await reload(recording.id)).status).toBe('ready');
}, 60_000);

test('a recording neither the link nor the provider knows fails at once, with both reasons', async () => {
  const room = await createRoom(stack.t, tenant);
  const upstream = stack.media.seedRecording({ meetingId: room.id, durationSeconds: 2, unlisted: true });
  const { body } = stack.media.notificationFor(upstream.id, { urlExpiresAt: new Date(Date.now() - 60_000) });
  const recording = await notify(body);
  await expect(stack.ingestionResult(recording.id)).rejects.toThrow();
  const row = await reload(recording.id);
  expect(row.status).toBe('failed');
  expect(row.failureReason).toMatch(/^the notification's link has expired, and the provider answered HTTP 404 for the recording/);
}, 60_000);
