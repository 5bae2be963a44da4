// Failure messages reach workflow histories (docs/decisions.md §13): URLs lose their query, keys and tokens their value.
import { ApplicationFailure } from '@temporalio/common';
import { createActivities, type ActivityDeps } from '../../src/activities/index.ts';
import { redactSecrets, safeFailure } from '../../src/activities/safe-failure.ts';

test('signed and presigned links keep scheme, host and path only', () => {
  expect(redactSecrets('GET http://127.0.0.1:4010/media/up-1.wav?expires=1798020789&sig=ab12cd failed')).toBe(
    'GET http://127.0.0.1:4010/media/up-1.wav failed',
  );
  const presigned = 'https://s3.example.com/b/k.wav?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=deadbeef&X-Amz-Credential=AKIA%2F';
  expect(redactSecrets(`upload to ${presigned}: 503`)).toBe('upload to https://s3.example.com/b/k.wav: 503');
  expect(redactSecrets('fetch https://user:pw@host.example/x#frag')).toBe('fetch https://host.example/x');
});

test('credential pairs and bearer tokens outside a URL are masked', () => {
  expect(redactSecrets('query sig=abc&X-Amz-Signature=def token=eyJhbGciOi')).toBe('query sig=[redacted]&X-Amz-Signature=[redacted] token=[redacted]');
  expect(redactSecrets('Authorization: Bearer cvn_live_123')).toBe('Authorization: Bearer [redacted]');
});

test('keys by their shape, as providers echo them in refusals, are masked', () => {
  expect(redactSecrets('Incorrect API key provided: sk-proj-abc123DEF456. You can find your API key at https://x/keys')).toBe(
    'Incorrect API key provided: [redacted key]. You can find your API key at https://x/keys',
  );
  expect(redactSecrets('bad key cvn_0123456789abcdef and whsec_abcdef012345')).toBe('bad key [redacted key] and [redacted key]');
  expect(redactSecrets('openai answered HTTP 503: model overloaded (task-1)')).toBe('openai answered HTTP 503: model overloaded (task-1)');
});

test('safeFailure keeps type and retryability, drops the cause chain', () => {
  const cause = new Error('connect ECONNREFUSED for http://h/x?sig=1');
  const plain = safeFailure(Object.assign(new TypeError('fetch failed'), { cause }));
  expect(plain).toBeInstanceOf(ApplicationFailure);
  expect(plain.message).toBe('fetch failed: connect ECONNREFUSED for http://h/x');
  expect(plain.nonRetryable).toBe(false);
  expect(plain.type).toBe('TypeError');
  expect(plain.cause).toBeUndefined();
  const permanent = safeFailure(ApplicationFailure.nonRetryable('gone: https://h/y?token=t', 'PermanentIngestFailure'));
  expect(permanent).toMatchObject({ message: 'gone: https://h/y', type: 'PermanentIngestFailure', nonRetryable: true });
});

test('every activity the worker registers redacts its failures (recording, room, tenant, transcription, post-meeting, delivery)', async () => {
  const leak = 'GET https://store.example/b/k.wav?X-Amz-Signature=abc123 failed';
  const orm = { em: { fork: () => { throw new Error(leak); } } };
  const deps = { orm, store: {}, provider: {}, events: {}, logger: {}, tenants: {}, providers: {}, webhooks: { retryDelaysSeconds: [0] }, rooms: {} };
  const activities = createActivities(deps as unknown as ActivityDeps);
  const failures: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(activities)) {
    failures[name] = await (fn as (input: unknown) => Promise<unknown>)({ recordingId: 'r', transcriptId: 't', deliveryId: 'd', attempt: 1 }).then(
      () => 'resolved',
      (err: unknown) => err,
    );
  }
  for (const [name, failure] of Object.entries(failures)) {
    if (failure === 'resolved') continue; // needs no database (e.g. the configured webhook schedule)
    expect({ name, failure: failure instanceof ApplicationFailure }).toEqual({ name, failure: true });
    expect({ name, message: (failure as Error).message }).toEqual({ name, message: expect.not.stringContaining('abc123') });
  }
  // The sets the audit found unwrapped are among the failing ones.
  for (const name of ['markTranscriptProcessing', 'planPostMeeting', 'attemptWebhookDelivery']) expect(failures[name]).toBeInstanceOf(ApplicationFailure);
});

test('a cancellation passes through unchanged, so the worker still reports it as one', async () => {
  const { CancelledFailure } = await import('@temporalio/common');
  const cancelled = new CancelledFailure('CANCELLED');
  const orm = { em: { fork: () => { throw cancelled; } } };
  const activities = createActivities({ orm } as unknown as ActivityDeps);
  await expect(activities.markTranscriptProcessing({ transcriptId: 't' })).rejects.toBe(cancelled);
});
