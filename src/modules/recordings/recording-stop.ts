// Stopping a recording, shared by Stop Recording (API), the auto-stop timer (worker) and room end/delete.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEventPublisher } from '../../events/domain-events.ts';
import { ApiError } from '../../http/errors.ts';
import { UpstreamError, type MediaProvider } from '../../upstream/media-provider.ts';
import type { Recording } from './recording.entity.ts';

export interface StopDeps {
  provider: MediaProvider;
  events: DomainEventPublisher;
}

/**
 * Stops `recording` at the provider (a repeated stop is harmless: the provider answers with the first stop) and moves
 * it to `processing`. The provider not knowing the recording any more is taken as stopped now.
 */
export async function stopRecording(em: EntityManager, deps: StopDeps, recording: Recording): Promise<Recording> {
  let stoppedAt = new Date();
  if (recording.upstreamRecordingId) {
    try {
      stoppedAt = new Date((await deps.provider.stopRecording(recording.upstreamRecordingId)).stoppedAt);
    } catch (err) {
      if (!(err instanceof UpstreamError) || err.status !== 404) throw providerFailure(err);
    }
  }
  recording.status = 'processing';
  recording.stoppedAt = stoppedAt;
  if (recording.startedAt) {
    recording.durationSeconds = Math.max(0, Math.round((stoppedAt.getTime() - recording.startedAt.getTime()) / 1000));
  }
  await em.flush();
  await deps.events.publish({
    type: 'recording.stopped',
    tenantId: recording.tenant.id,
    roomId: recording.room.id,
    recordingId: recording.id,
  });
  return recording;
}

/** A provider failure as the client sees it: the provider is the dependency that is down (503), never a 500. */
export function providerFailure(err: unknown): Error {
  if (err instanceof UpstreamError) {
    return new ApiError('SERVICE_UNAVAILABLE', `The media provider failed: ${err.message}`, { headers: { 'Retry-After': '5' } });
  }
  return err as Error;
}
