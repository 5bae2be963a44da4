import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { TenantSchema } from '../tenants/tenant.entity.ts';

// Outgoing webhooks as data (docs/decisions.md §10): every delivery and every attempt is a row. The delivery log endpoints
// read these; the delivery workflow writes them. Room and recording are plain ids (no foreign key): the log of what
// was sent outlives a deleted room.

export type DeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'failed';
/** What a delivery carries: the post-meeting result, or a test event the tenant asked for (docs/decisions.md §10). */
export type DeliveryEvent = 'meeting.recording_ready' | 'webhook.test';

export const WebhookDeliverySchema = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  indexes: [
    {
      name: 'webhook_deliveries_tenant_index',
      expression: 'create index "webhook_deliveries_tenant_index" on "webhook_deliveries" ("tenant_id", "created_at" desc, "id" desc)',
    },
    {
      // One original delivery per recording and post-meeting run: a repeated completePostMeeting finds it instead of
      // making a second; a re-run (docs/decisions.md §9) makes its own.
      name: 'webhook_deliveries_recording_run_unique',
      expression:
        'create unique index "webhook_deliveries_recording_run_unique" on "webhook_deliveries" ("recording_id", "post_meeting_run") where "resent_from" is null',
    },
  ],
  properties: {
    id: p.uuid().primary(),
    tenant: () => p.manyToOne(TenantSchema).deleteRule('cascade'),
    /** Null for a test event, which is about no meeting. */
    roomId: p.uuid().nullable(),
    recordingId: p.uuid().nullable(),
    event: p.string().length(64).$type<DeliveryEvent>(),
    status: p.string().length(16).$type<DeliveryStatus>(),
    /** The endpoint as configured when the delivery was created (a re-send takes the current one). */
    url: p.string().length(2048),
    resentFrom: p.uuid().nullable(),
    /** The post-meeting run whose result this delivery carries (1: the first; a re-run's is n ≥ 2). */
    postMeetingRun: p.integer().default(1),
    attemptCount: p.integer().default(0),
    lastResponseStatusCode: p.integer().nullable(),
    nextAttemptAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    completedAt: p.datetime().nullable(),
  },
});

export type WebhookDelivery = InferEntity<typeof WebhookDeliverySchema>;

export const WebhookDeliveryAttemptSchema = defineEntity({
  name: 'WebhookDeliveryAttempt',
  tableName: 'webhook_delivery_attempts',
  // (delivery, attempt) is the key: an activity repeated after a crash never records an attempt twice.
  properties: {
    delivery: () => p.manyToOne(WebhookDeliverySchema).primary().deleteRule('cascade'),
    attempt: p.integer().primary(),
    status: p.string().length(16).$type<'succeeded' | 'failed'>(),
    responseStatusCode: p.integer().nullable(),
    durationMs: p.integer(),
    error: p.string().length(1000).nullable(),
    /** The receiver's answer, truncated to 1 KiB (docs/decisions.md §10); for operators, not shown by the API. */
    responseBody: p.text().nullable(),
    attemptedAt: p.datetime(),
    nextAttemptAt: p.datetime().nullable(),
  },
});

export type WebhookDeliveryAttempt = InferEntity<typeof WebhookDeliveryAttemptSchema>;
