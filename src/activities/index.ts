// Every activity the worker registers, built from explicit dependencies (tests build the same thing).
import { createRecordingActivities, type RecordingActivityDeps } from './recordings.ts';
import { createTenantActivities } from './tenants.ts';

export type ActivityDeps = RecordingActivityDeps;

export function createActivities(deps: ActivityDeps) {
  return { ...createRecordingActivities(deps), ...createTenantActivities(deps) };
}

export type Activities = ReturnType<typeof createActivities>;
