// Every activity the worker registers, built from explicit dependencies (tests build the same thing).
import { createDeliveryActivities, type DeliveryActivityDeps } from './deliveries.ts';
import { createPostMeetingActivities, type PostMeetingActivityDeps } from './post-meeting.ts';
import { createRecordingActivities, type RecordingActivityDeps } from './recordings.ts';
import { createTenantActivities } from './tenants.ts';
import { createTranscriptionActivities, type TranscriptionActivityDeps } from './transcription.ts';

export type ActivityDeps = RecordingActivityDeps & TranscriptionActivityDeps & PostMeetingActivityDeps & DeliveryActivityDeps;

export function createActivities(deps: ActivityDeps) {
  return {
    ...createRecordingActivities(deps),
    ...createTenantActivities(deps),
    ...createTranscriptionActivities(deps),
    ...createPostMeetingActivities(deps),
    ...createDeliveryActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
