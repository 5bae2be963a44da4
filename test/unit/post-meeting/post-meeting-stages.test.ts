// Rules of the post-meeting and transcription stages that need no database (docs/decisions.md §9): which steps a
// run takes from the tenant's config, and a provider's segments kept within the contract's bounds.
import { webhookAccepts } from '../../../src/modules/deliveries/webhook-target.ts';
import { stepsFor } from '../../../src/modules/post-meeting/post-meeting-steps.ts';
import type { PostMeetingWebhookConfig } from '../../../src/modules/tenants/tenant-config.ts';
import { bounded } from '../../../src/modules/transcripts/transcription-stages.ts';

const hook = (flags: Partial<PostMeetingWebhookConfig> = {}): PostMeetingWebhookConfig => ({
  enabled: true,
  url: 'https://receiver.example/hook',
  secret: 'whsec_unit_0123456789abcdef',
  include_recording: false,
  include_transcript: false,
  include_summary: false,
  include_action_items: false,
  ...flags,
});

describe('stepsFor: what a post-meeting run does', () => {
  test('no webhook: transcribe only when transcription_enabled; nothing is delivered', () => {
    expect(stepsFor({ transcription_enabled: false, post_meeting_webhook: null })).toEqual({ transcribe: false, summarise: false, deliver: false });
    expect(stepsFor({ transcription_enabled: true, post_meeting_webhook: null })).toEqual({ transcribe: true, summarise: false, deliver: false });
  });

  test('the webhook asks for a transcript: transcribed, not summarised', () => {
    expect(stepsFor({ transcription_enabled: false, post_meeting_webhook: hook({ include_transcript: true }) })).toEqual({
      transcribe: true,
      summarise: false,
      deliver: true,
    });
  });

  test('a summary or action items need a transcript: both steps run, whatever transcription_enabled says', () => {
    for (const flags of [{ include_summary: true }, { include_action_items: true }]) {
      expect(stepsFor({ transcription_enabled: false, post_meeting_webhook: hook(flags) })).toEqual({ transcribe: true, summarise: true, deliver: true });
    }
  });

  test('a disabled webhook is not delivered; its include flags still decide the other steps', () => {
    expect(stepsFor({ transcription_enabled: false, post_meeting_webhook: hook({ enabled: false, include_summary: true }) })).toEqual({
      transcribe: true,
      summarise: true,
      deliver: false,
    });
    expect(stepsFor({ transcription_enabled: false, post_meeting_webhook: hook({ include_recording: true }) })).toEqual({
      transcribe: false,
      summarise: false,
      deliver: true,
    });
  });

  test('delivered exactly when a delivery would be created: the one rule of src/modules/deliveries/webhook-target.ts', () => {
    for (const flags of [{}, { enabled: false }, { secret: '' }, { url: '' }]) {
      const webhook = hook(flags);
      expect(stepsFor({ transcription_enabled: false, post_meeting_webhook: webhook }).deliver).toBe(webhookAccepts(webhook, 'meeting.recording_ready'));
    }
    expect(stepsFor({ transcription_enabled: false, post_meeting_webhook: hook({ secret: '' }) }).deliver).toBe(false);
  });
});

describe('bounded: a provider segment as the contract allows it', () => {
  test('negative or non-finite times become 0, an end before its start becomes the start', () => {
    expect(bounded({ start: -3, end: Number.NaN, text: 'hi', speaker: 'A' })).toEqual({ start: 0, end: 0, text: 'hi', speaker: 'A' });
    expect(bounded({ start: 5, end: 2, text: 'x', speaker: '' })).toEqual({ start: 5, end: 5, text: 'x', speaker: '' });
    expect(bounded({ start: Number.POSITIVE_INFINITY, end: 4, text: 'x', speaker: '' })).toEqual({ start: 0, end: 4, text: 'x', speaker: '' });
  });

  test('text is cut to 10,000 characters and the speaker to 100', () => {
    const segment = bounded({ start: 1, end: 2, text: 'a'.repeat(10_001), speaker: 's'.repeat(101) });
    expect([segment.text.length, segment.speaker.length]).toEqual([10_000, 100]);
  });
});
