// The notification's link kept with the recording (docs/decisions.md §7): sealed under SECRETS_KEY and bound to its recording;
// whether it says it has expired (then the provider is asked without trying it).
import { linkExpired, openNotifiedSource, sealNotifiedSource } from '../../src/modules/recordings/recording-source.ts';
import { generateSecretsKey, SecretBox } from '../../src/security/secret-box.ts';

const notification = {
  type: 'recording.ready' as const,
  recording_id: 'up-1',
  meeting_id: 'room-1',
  url: 'http://127.0.0.1:4010/media/up-1.wav?expires=1798020789&sig=ab12cd',
  duration_seconds: 30,
  size_bytes: 480_044,
  content_type: 'audio/wav',
};

test('sealed, it opens for its own recording only, and does not show the link', () => {
  const box = new SecretBox(generateSecretsKey());
  const sealed = sealNotifiedSource(box, 'rec-1', notification);
  expect(sealed).not.toContain('sig=');
  expect(sealed).not.toContain('127.0.0.1');
  expect(openNotifiedSource(box, 'rec-1', sealed)).toEqual({ url: notification.url, contentType: 'audio/wav', sizeBytes: 480_044 });
  expect(openNotifiedSource(box, 'rec-2', sealed)).toBeNull(); // copied to another row: the provider is asked instead
  expect(openNotifiedSource(new SecretBox(generateSecretsKey()), 'rec-1', sealed)).toBeNull(); // another key
  expect(openNotifiedSource(box, 'rec-1', null)).toBeNull();
});

test('a link says it has expired by its `expires` (Unix seconds) or S3 X-Amz-Date + X-Amz-Expires; one that says nothing is tried', () => {
  const now = new Date('2026-11-25T12:00:00Z');
  const at = (iso: string) => Math.floor(Date.parse(iso) / 1000);
  expect(linkExpired(`http://h/x.wav?expires=${at('2026-11-25T11:59:59Z')}&sig=a`, now)).toBe(true);
  expect(linkExpired(`http://h/x.wav?expires=${at('2026-11-25T12:00:01Z')}&sig=a`, now)).toBe(false);
  expect(linkExpired('https://s3.example/b/k.wav?X-Amz-Date=20261125T110000Z&X-Amz-Expires=3599&X-Amz-Signature=f', now)).toBe(true);
  expect(linkExpired('https://s3.example/b/k.wav?X-Amz-Date=20261125T110000Z&X-Amz-Expires=3601&X-Amz-Signature=f', now)).toBe(false);
  expect(linkExpired('https://cdn.example/k.wav?token=abc', now)).toBe(false);
  expect(linkExpired('not a url', now)).toBe(true);
});
