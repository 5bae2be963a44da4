// POST /api/v1/webhooks/upstream/recording-ready: signature on the raw bytes first, then import and ingestion.
import { RecordingSchema } from '../../../src/modules/recordings/recording.entity.ts';
import { signUpstream } from '../../../src/security/signatures.ts';
import { recordingIngestWorkflowId } from '../../../workflows/shared.ts';
import { createRoom, createTenant, type TenantFixture } from '../../helpers/fixtures.ts';
import { createRecordingStack, WEBHOOK_SECRET, type RecordingStack } from '../../helpers/recording-stack.ts';

const PATH = '/api/v1/webhooks/upstream/recording-ready';
let stack: RecordingStack;
let tenant: TenantFixture;

beforeAll(async () => {
  stack = await createRecordingStack();
  await stack.startWorker();
  tenant = await createTenant(stack.t);
});
afterAll(async () => {
  await stack?.close();
});

const post = (body: string, signature?: string) => {
  const req = stack.t.request.post(PATH).set('Content-Type', 'application/json');
  if (signature !== undefined) req.set('X-Upstream-Signature', signature);
  return req.send(body);
};

/** Runs of a workflow id, as the Temporal UI lists them. */
/**
 * The runs of a workflow id as Temporal's visibility store lists them, once it has caught up: it is eventually
 * consistent, so a run whose result was just read may still be listed as running for a moment (seen once in CI).
 */
async function runsOf(workflowId: string): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    const runs: string[] = [];
    for await (const run of stack.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(run.status.name);
    if (!runs.includes('RUNNING') || attempt === 50) return runs;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a missing or wrong signature is 401 INVALID_SIGNATURE, whatever the body (even one that is not JSON)', async () => {
  const room = await createRoom(stack.t, tenant);
  const body = JSON.stringify({ type: 'recording.ready', recording_id: 'x', meeting_id: room.id, url: 'http://127.0.0.1:1/x', duration_seconds: 1, size_bytes: 1, content_type: 'audio/wav' });
  const cases: Array<[string, string | undefined]> = [
    [body, undefined],
    [body, ''],
    [body, signUpstream('another-secret', body)],
    [body, signUpstream(WEBHOOK_SECRET, body).toUpperCase().replace(/./, 'x')],
    [body + ' ', signUpstream(WEBHOOK_SECRET, body)], // one byte more than was signed
    ['{not json', signUpstream('another-secret', '{not json')],
  ];
  for (const [raw, signature] of cases) {
    const res = await post(raw, signature);
    expect([signature?.slice(0, 8), res.status, res.body.error?.code]).toEqual([signature?.slice(0, 8), 401, 'INVALID_SIGNATURE']);
  }
  // Signed but not JSON, or not the schema: now the body is looked at.
  expect((await post('{not json', signUpstream(WEBHOOK_SECRET, '{not json'))).status).toBe(400);
  const text = 'recording ready';
  const plain = await stack.t.request.post(PATH).set('Content-Type', 'text/plain').set('X-Upstream-Signature', signUpstream(WEBHOOK_SECRET, text)).send(text);
  expect([plain.status, plain.body.error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  const huge = JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 1) });
  const tooLarge = await post(huge, signUpstream(WEBHOOK_SECRET, huge));
  expect([tooLarge.status, tooLarge.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  const partial = JSON.stringify({ type: 'recording.ready' });
  const invalid = await post(partial, signUpstream(WEBHOOK_SECRET, partial));
  expect(invalid.status).toBe(400);
  expect(invalid.body.error.code).toBe('VALIDATION_ERROR');
});

test('an unknown room is 404; an unknown recording of a known room is imported and ingested', async () => {
  const body = (meetingId: string, recordingId: string) =>
    JSON.stringify({ type: 'recording.ready', recording_id: recordingId, meeting_id: meetingId, url: 'http://127.0.0.1:1/x', duration_seconds: 1, size_bytes: 1, content_type: 'audio/wav' });
  const unknownRoom = body('01937000-0000-7000-8000-00000000abcd', 'nope');
  expect((await post(unknownRoom, signUpstream(WEBHOOK_SECRET, unknownRoom))).status).toBe(404);

  const room = await createRoom(stack.t, tenant);
  // The provider recorded the room on its own and announces it: Convene has never heard of this recording.
  const upstream = stack.media.seedRecording({ meetingId: room.id, durationSeconds: 4, notify: true });
  await stack.media.settled();
  const delivered = stack.media.notifications.filter((n) => n.recordingId === upstream.id);
  expect(delivered.map((n) => n.status)).toEqual([202]);

  const row = await stack.t.services.orm.em.fork().findOneOrFail(RecordingSchema, { upstreamRecordingId: upstream.id });
  expect(row.room.id).toBe(room.id);
  expect(row.tenant.id).toBe(tenant.id);
  await stack.ingestionResult(row.id);
  const got = await stack.t.request.get(`/api/v1/recordings/${row.id}`).set(tenant.auth);
  expect(got.body.data).toMatchObject({ status: 'ready', size_bytes: upstream.size_bytes, duration_seconds: 4, started_at: null });
});

test('duplicate notifications, at once or later, start exactly one ingestion and answer 202 each time', async () => {
  const room = await createRoom(stack.t, tenant);
  const upstream = stack.media.seedRecording({ meetingId: room.id, durationSeconds: 2, notify: false });
  const { body, signature } = stack.media.notificationFor(upstream.id);

  const answers = await Promise.all([post(body, signature), post(body, signature), post(body, signature)]);
  expect(answers.map((a) => [a.status, a.body])).toEqual(Array(3).fill([202, { received: true }]));

  const rows = await stack.t.services.orm.em.fork().find(RecordingSchema, { upstreamRecordingId: upstream.id });
  expect(rows).toHaveLength(1);
  await stack.ingestionResult(rows[0].id);

  const late = await post(body, signature);
  expect([late.status, late.body]).toEqual([202, { received: true }]);
  expect(await runsOf(recordingIngestWorkflowId(rows[0].id))).toEqual(['COMPLETED']);
  const { store } = stack.t.services;
  expect(await store.list(store.bucket, `recordings/${tenant.id}/${rows[0].id}`)).toHaveLength(1);
});

test('an expired temporary URL is replaced by a fresh one from the provider', async () => {
  const room = await createRoom(stack.t, tenant);
  const upstream = stack.media.seedRecording({ meetingId: room.id, durationSeconds: 2, notify: false });
  const notification = JSON.parse(stack.media.notificationFor(upstream.id).body);
  notification.url = stack.media.mediaUrl(upstream.id, new Date(Date.now() - 60_000));
  expect((await fetch(notification.url)).status).toBe(403);
  const body = JSON.stringify(notification);
  expect((await post(body, signUpstream(WEBHOOK_SECRET, body))).status).toBe(202);
  const row = await stack.t.services.orm.em.fork().findOneOrFail(RecordingSchema, { upstreamRecordingId: upstream.id });
  await stack.ingestionResult(row.id);
  const got = await stack.t.request.get(`/api/v1/recordings/${row.id}`).set(tenant.auth);
  expect(got.body.data).toMatchObject({ status: 'ready', size_bytes: upstream.size_bytes });
});
