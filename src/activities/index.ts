// Every activity the worker registers, built from explicit dependencies (tests build the same thing).
import { createDeliveryActivities, type DeliveryActivityDeps } from './deliveries.ts';
import { createRecordingActivities, type RecordingActivityDeps } from './recordings.ts';
import { createTenantActivities } from './tenants.ts';

/** The delivery activities need the tenant rules and the webhook settings; without them they are not registered. */
export type ActivityDeps = RecordingActivityDeps & Partial<Pick<DeliveryActivityDeps, 'tenants' | 'webhooks'>>;

export function createActivities(deps: ActivityDeps) {
  const { tenants, webhooks } = deps;
  return {
    ...createRecordingActivities(deps),
    ...createTenantActivities(deps),
    ...(tenants && webhooks ? createDeliveryActivities({ ...deps, tenants, webhooks }) : {}),
  };
}

export type Activities = ReturnType<typeof createActivities>;
