// Whether an event may go to a tenant's post-meeting webhook (docs/decisions.md §10), decided here for the creation of a
// delivery and for each of its attempts alike.
import type { PostMeetingWebhookConfig } from '../tenants/tenant-config.ts';
import type { DeliveryEvent } from './delivery.entity.ts';

/**
 * A delivery needs a URL to POST to and a secret to sign with. Post-meeting results go only to an `enabled` webhook;
 * the test event is how a tenant checks its receiver before enabling it, so it needs the webhook configured, not enabled.
 */
export function webhookAccepts(hook: PostMeetingWebhookConfig | null | undefined, event: DeliveryEvent): hook is PostMeetingWebhookConfig {
  if (!hook?.url || !hook.secret) return false;
  return event === 'webhook.test' || hook.enabled;
}

/** The test event is one attempt, now: a tenant checking its receiver wants the answer, not a retry schedule. */
export const TEST_EVENT_SCHEDULE: readonly number[] = [0];
