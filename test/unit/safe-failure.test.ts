// Failure messages reach workflow histories (DECISIONS §13): URLs lose their query, keys and tokens their value.
import { ApplicationFailure } from '@temporalio/common';
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
