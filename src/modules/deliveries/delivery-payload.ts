// The `meeting.recording_ready` body (spec "Outgoing webhook", docs/decisions.md §10), built afresh at every attempt from the
// rows: the room, the recording, the post-meeting result and its transcript. The recording's download URL is presigned
// here (valid 24 h), so a retry four hours later still carries a working link.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { MeetingRecordingReadyPayload, WebhookTestPayload } from '../../../generated/asyncapi.ts';
import { downloadFileName } from '../../storage/keys.ts';
import type { ObjectStore } from '../../storage/object-store.ts';
import { ParticipantSchema } from '../participants/participant.entity.ts';
import { PostMeetingResultSchema, type PostMeetingError } from '../post-meeting/post-meeting-result.entity.ts';
import { RecordingSchema } from '../recordings/recording.entity.ts';
import { RoomSchema } from '../rooms/room.entity.ts';
import type { PostMeetingWebhookConfig } from '../tenants/tenant-config.ts';
import { TranscriptSchema } from '../transcripts/transcript.entity.ts';
import type { WebhookDelivery } from './delivery.entity.ts';

/** How long the presigned `recording.download_url` is valid (docs/decisions.md §10). */
export const DOWNLOAD_URL_TTL_SECONDS = 24 * 3600;

/**
 * Largest body we send. A longer one (a very long transcript) loses its `transcript.segments` first, then its
 * `transcript.text`, each with an `errors[]` entry `payload_too_large` (docs/webhooks.md), so it is never cut silently.
 */
export const MAX_PAYLOAD_BYTES = 5 * 1024 * 1024;

/** The body as spec/asyncapi.yaml states it (generated from the contract, never written by hand). */
export type { MeetingRecordingReadyPayload };
type PayloadError = NonNullable<MeetingRecordingReadyPayload['errors']>[number];

type Include = Pick<PostMeetingWebhookConfig, 'include_recording' | 'include_transcript' | 'include_summary' | 'include_action_items'>;

export async function buildPayload(
  em: EntityManager,
  store: ObjectStore,
  delivery: WebhookDelivery,
  include: Include,
  now: Date = new Date(),
): Promise<{ body: string; payload: MeetingRecordingReadyPayload }> {
  const tenantId = delivery.tenant.id;
  const roomId = delivery.roomId;
  if (!roomId) throw new Error(`delivery ${delivery.id} of ${delivery.event} has no room`); // only the test event has none
  const room = await em.findOne(RoomSchema, { id: roomId, tenant: tenantId });
  const recording = delivery.recordingId
    ? await em.findOne(RecordingSchema, { id: delivery.recordingId, tenant: tenantId })
    : null;
  const result = delivery.recordingId
    ? await em.findOne(PostMeetingResultSchema, { recording: delivery.recordingId, tenant: tenantId })
    : null;
  const errors: PayloadError[] = [...((result?.errors ?? []) as PostMeetingError[])];

  const startedAt = room?.createdAt ?? delivery.createdAt;
  const endedAt = room?.endedAt ?? null;
  const participantCount = room
    ? await em.count(ParticipantSchema, { room: room.id, removedAt: null })
    : 0;
  // The span of the room; while it is still active, the recording's duration (docs/decisions.md §10).
  const durationSeconds = endedAt
    ? Math.max(0, Math.round((endedAt.getTime() - startedAt.getTime()) / 1000))
    : (recording?.durationSeconds ?? Math.max(0, Math.round((now.getTime() - startedAt.getTime()) / 1000)));

  const payload: MeetingRecordingReadyPayload = {
    event: 'meeting.recording_ready',
    timestamp: now.toISOString(),
    meeting: {
      id: roomId,
      name: room?.name ?? '',
      started_at: startedAt.toISOString(),
      ended_at: endedAt ? endedAt.toISOString() : null,
      duration_seconds: durationSeconds,
      participant_count: participantCount,
    },
  };

  if (include.include_recording) {
    const stored = recording && !recording.purgedAt && recording.objectKey && recording.storageBucket ? recording : null;
    if (stored) {
      const expiresAt = new Date(now.getTime() + DOWNLOAD_URL_TTL_SECONDS * 1000);
      payload.recording = {
        id: stored.id,
        duration_seconds: stored.durationSeconds ?? 0,
        size_bytes: stored.sizeBytes ?? 0,
        download_url: await store.presignGet(
          { bucket: stored.storageBucket!, key: stored.objectKey! },
          { expiresInSeconds: DOWNLOAD_URL_TTL_SECONDS, fileName: downloadFileName(stored.objectKey!) },
        ),
        download_api: `/api/v1/recordings/${stored.id}/download`,
        expires_at: expiresAt.toISOString(),
      };
    } else {
      payload.recording = null;
      if (!errors.some((e) => e.field === 'recording')) {
        errors.push({ field: 'recording', code: 'recording_unavailable', message: 'The recording file is no longer stored' });
      }
    }
  }

  if (include.include_transcript) {
    const transcript = result?.transcript ? await em.findOne(TranscriptSchema, { id: result.transcript.id }) : null;
    if (transcript && transcript.status === 'completed') {
      payload.transcript = {
        id: transcript.id,
        text: transcript.text ?? '',
        word_count: transcript.wordCount ?? 0,
        language: transcript.language ?? '',
        provider: transcript.provider,
        segments: (transcript.content?.segments ?? []).map((s) => ({ start: s.start, end: s.end, text: s.text })),
      };
    } else {
      payload.transcript = null;
      if (!errors.some((e) => e.field === 'transcript')) {
        errors.push({
          field: 'transcript',
          code: 'transcription_failed',
          message: transcript?.failureReason ?? 'No transcript was produced',
        });
      }
    }
  }
  if (include.include_summary) payload.summary = result?.summary ?? null;
  if (include.include_action_items) payload.action_items = result?.actionItems ?? [];

  return fitToBound(payload, errors);
}

/** The `webhook.test` body (spec/asyncapi.yaml WebhookTestPayload): who it is for and when, no meeting data. */
export function buildTestPayload(delivery: WebhookDelivery, now: Date = new Date()): { body: string; payload: WebhookTestPayload } {
  const payload: WebhookTestPayload = { event: 'webhook.test', timestamp: now.toISOString(), tenant: { id: delivery.tenant.id } };
  return { body: JSON.stringify(payload), payload };
}

/** Serialises; sheds transcript segments, then the transcript text, when the body would exceed MAX_PAYLOAD_BYTES. */
function fitToBound(payload: MeetingRecordingReadyPayload, errors: PayloadError[]): { body: string; payload: MeetingRecordingReadyPayload } {
  const serialise = () => JSON.stringify(errors.length > 0 ? { ...payload, errors } : payload);
  let body = serialise();
  if (Buffer.byteLength(body) <= MAX_PAYLOAD_BYTES || !payload.transcript) return { body, payload: JSON.parse(body) };
  payload.transcript = { ...payload.transcript, segments: [] };
  errors.push({
    field: 'transcript',
    code: 'payload_too_large',
    message: `transcript.segments left out: the payload would exceed ${MAX_PAYLOAD_BYTES} bytes; fetch the transcript from the API`,
  });
  body = serialise();
  if (Buffer.byteLength(body) <= MAX_PAYLOAD_BYTES) return { body, payload: JSON.parse(body) };
  payload.transcript = { ...payload.transcript, text: '' };
  errors.push({
    field: 'transcript',
    code: 'payload_too_large',
    message: `transcript.text left out: the payload would exceed ${MAX_PAYLOAD_BYTES} bytes; fetch the transcript from the API`,
  });
  body = serialise();
  return { body, payload: JSON.parse(body) };
}
