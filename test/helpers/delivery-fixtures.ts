// Stands in for post-meeting processing (docs/decisions.md §9) in the delivery tests: a stored recording (a real object
// in S3), its transcript and its post_meeting_results row, written with the ORM exactly as that workflow leaves them.
import { Readable } from 'node:stream';
import { v7 as uuidv7 } from 'uuid';
import { PostMeetingResultSchema, type PostMeetingError } from '../../src/modules/post-meeting/post-meeting-result.entity.ts';
import { RecordingSchema } from '../../src/modules/recordings/recording.entity.ts';
import { TranscriptSchema } from '../../src/modules/transcripts/transcript.entity.ts';
import { recordingObjectKey } from '../../src/storage/keys.ts';
import type { TestApp } from './test-app.ts';
import { patchConfig, type TenantFixture } from './fixtures.ts';

export const RECORDING_BYTES = Buffer.from('RIFF....WAVEfmt fake audio bytes for the webhook tests');

export const SEGMENTS = [
  { start: 0, end: 2.5, text: 'Welcome everyone.', speaker: 'speaker_0' },
  { start: 2.5, end: 6, text: 'Alice will send the report by Friday.', speaker: 'speaker_1' },
];

export async function configureWebhook(t: TestApp, tenant: TenantFixture, hook: Record<string, unknown>) {
  await patchConfig(t, tenant, {
    post_meeting_webhook: {
      enabled: true,
      include_recording: true,
      include_transcript: true,
      include_summary: true,
      include_action_items: true,
      ...hook,
    },
  });
}

/** A ready recording of `roomId` with its file in S3, a completed transcript and a completed post-meeting result. */
export async function processedRecording(
  t: TestApp,
  tenant: TenantFixture,
  roomId: string,
  options: { errors?: PostMeetingError[]; summary?: string | null; segments?: typeof SEGMENTS } = {},
) {
  const em = t.services.orm.em.fork();
  const recordingId = uuidv7();
  const key = recordingObjectKey(tenant.id, recordingId, 'audio/wav');
  const stored = await t.services.store.upload({ key, body: Readable.from([RECORDING_BYTES]), contentType: 'audio/wav' });
  em.create(RecordingSchema, {
    id: recordingId,
    tenant: tenant.id,
    room: roomId,
    status: 'ready',
    storageTier: 'primary',
    storageBucket: stored.bucket,
    objectKey: key,
    contentType: 'audio/wav',
    sizeBytes: stored.sizeBytes,
    durationSeconds: 6,
    startedAt: new Date(Date.now() - 10_000),
    stoppedAt: new Date(Date.now() - 4_000),
    readyAt: new Date(),
  });
  const segments = options.segments ?? SEGMENTS;
  const text = segments.map((s) => s.text).join(' ');
  const transcriptId = uuidv7();
  em.create(TranscriptSchema, {
    id: transcriptId,
    tenant: tenant.id,
    room: roomId,
    recording: recordingId,
    origin: 'post_meeting',
    status: 'completed',
    provider: 'openai',
    language: 'en-US',
    content: { segments },
    text,
    wordCount: text.split(/\s+/).filter(Boolean).length,
    completedAt: new Date(),
  });
  await em.flush();
  em.create(PostMeetingResultSchema, {
    recording: recordingId,
    tenant: tenant.id,
    roomId,
    status: 'completed',
    transcript: transcriptId,
    summary: options.summary === undefined ? 'The team agreed on the report.' : options.summary,
    actionItems: ['Alice will send the report by Friday.'],
    errors: options.errors ?? [],
    completedAt: new Date(),
  });
  await em.flush();
  return { recordingId, transcriptId, text, wordCount: text.split(/\s+/).filter(Boolean).length };
}
