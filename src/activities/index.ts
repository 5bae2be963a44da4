// Every activity the worker registers, built from explicit dependencies: the one factory (docs/architecture.md habit 1). The
// worker and the tests call it alike, so a test's worker registers exactly the production set.
import { createDeliveryActivities, type DeliveryActivityDeps } from './deliveries.ts';
import { createPostMeetingActivities, type PostMeetingActivityDeps } from './post-meeting.ts';
import { createRecordingActivities, type RecordingActivityDeps } from './recordings.ts';
import { createRoomActivities, type RoomActivityDeps } from './rooms.ts';
import { createTenantActivities } from './tenants.ts';
import { createTranscriptionActivities, type TranscriptionActivityDeps } from './transcription.ts';

export type ActivityDeps = RecordingActivityDeps &
  RoomActivityDeps &
  TranscriptionActivityDeps &
  PostMeetingActivityDeps &
  DeliveryActivityDeps;

export function createActivities(deps: ActivityDeps) {
  return {
    ...createRecordingActivities(deps),
    ...createRoomActivities(deps),
    ...createTenantActivities(deps),
    ...createTranscriptionActivities(deps),
    ...createPostMeetingActivities(deps),
    ...createDeliveryActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
