// Activities of the webhook delivery workflow (workflows/webhook-delivery.ts) and the post-meeting hand-over
// (createWebhookDelivery). Inputs and results are ids, numbers and statuses only: the URL, the secret and the payload
// are resolved here and never reach a workflow history (docs/decisions.md §13).
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Config } from '../config.ts';
import type { Orm } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import { buildPayload } from '../modules/deliveries/delivery-payload.ts';
import { metrics } from '../metrics/metrics.ts';
import { attemptOutcome, sendWebhook, type SendOutcome } from '../modules/deliveries/delivery-sender.ts';
import { createDelivery } from '../modules/deliveries/delivery.service.ts';
import {
  WebhookDeliveryAttemptSchema,
  WebhookDeliverySchema,
  type DeliveryStatus,
} from '../modules/deliveries/delivery.entity.ts';
import { PostMeetingResultSchema } from '../modules/post-meeting/post-meeting-result.entity.ts';
import { RecordingSchema } from '../modules/recordings/recording.entity.ts';
import { TenantSchema } from '../modules/tenants/tenant.entity.ts';
import type { TenantService } from '../modules/tenants/tenant.service.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import { withSafeFailures } from './safe-failure.ts';

export interface WebhookSettings {
  /** WEBHOOK_RETRY_DELAYS, in seconds: the delay before each attempt (the first is usually 0). */
  retryDelaysSeconds: number[];
  /** WEBHOOK_TIMEOUT_MS: the whole exchange with the receiver (docs/decisions.md §10: 30 s). */
  timeoutMs: number;
  /** Production: https only, public addresses only, checked at every attempt after DNS resolution. */
  production: boolean;
}

/** The settings the delivery activities take from the configuration (one place for the worker and the tests). */
export function webhookSettings(config: Pick<Config, 'webhookRetryDelays' | 'webhookTimeoutMs' | 'nodeEnv'>): WebhookSettings {
  return { retryDelaysSeconds: config.webhookRetryDelays, timeoutMs: config.webhookTimeoutMs, production: config.nodeEnv === 'production' };
}

export interface DeliveryActivityDeps {
  orm: Orm;
  store: ObjectStore;
  logger: Logger;
  tenants: Pick<TenantService, 'effectiveConfig'>;
  webhooks: WebhookSettings;
}

export interface AttemptInput {
  deliveryId: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** The schedule's delay before the next attempt; null when this is the last one. */
  nextDelaySeconds: number | null;
}

export interface AttemptDecision {
  /** The delivery's status after this attempt. */
  status: DeliveryStatus;
  /** How long the workflow sleeps before the next attempt (null: no next attempt). */
  nextDelaySeconds: number | null;
  /** The receiver's HTTP status, null on timeout or network error. */
  responseStatusCode: number | null;
}

export function createDeliveryActivities(deps: DeliveryActivityDeps) {
  const { orm, store, tenants, webhooks } = deps;

  return withSafeFailures({
    /**
     * Called by post-meeting processing (issue 8): the delivery of a recording's result, or null without an enabled
     * webhook. One per post-meeting run (`run`, absent for the first): a re-run sends a new delivery (docs/decisions.md §9).
     */
    async createWebhookDelivery({ recordingId, run }: { recordingId: string; run?: number }): Promise<{ deliveryId: string } | null> {
      const em = orm.em.fork();
      const result = await em.findOne(PostMeetingResultSchema, { recording: recordingId });
      const recording = result ? null : await em.findOne(RecordingSchema, { id: recordingId });
      const tenantId = result?.tenant.id ?? recording?.tenant.id;
      const roomId = result?.roomId ?? recording?.room.id;
      if (!tenantId || !roomId) return null;
      const delivery = await createDelivery(em, tenants, { tenantId, roomId, recordingId, postMeetingRun: run ?? 1 });
      return delivery ? { deliveryId: delivery.id } : null;
    },

    /** The configured schedule, for a run started without one in its input (the post-meeting child start). */
    async webhookDeliverySchedule(): Promise<{ retryDelaysSeconds: number[] }> {
      return { retryDelaysSeconds: webhooks.retryDelaysSeconds };
    },

    /**
     * Attempt n of a delivery: build the payload afresh, sign, POST, record the attempt and the delivery's new status.
     * Repeatable: an attempt already recorded (the activity ran, then its worker died) is not made again.
     */
    async attemptWebhookDelivery(input: AttemptInput): Promise<AttemptDecision> {
      const em = orm.em.fork();
      const delivery = await em.findOne(WebhookDeliverySchema, { id: input.deliveryId });
      if (!delivery) throw ApplicationFailure.nonRetryable(`delivery ${input.deliveryId} no longer exists`, 'DeliveryGone');
      const recorded = await em.findOne(WebhookDeliveryAttemptSchema, { delivery: delivery.id, attempt: input.attempt });
      if (recorded) return decisionOf(delivery.status, recorded);
      if (delivery.status === 'succeeded' || delivery.status === 'failed') {
        return { status: delivery.status, nextDelaySeconds: null, responseStatusCode: delivery.lastResponseStatusCode ?? null };
      }

      const info = Context.current().info;
      // The server's clock (skipped time on the time-skipping server): when this attempt was scheduled to run.
      const attemptedAt = new Date(info.currentAttemptScheduledTimestampMs);
      const tenant = await em.findOne(TenantSchema, { id: delivery.tenant.id });
      const hook = tenant ? tenants.effectiveConfig(tenant).post_meeting_webhook : null;

      let outcome: SendOutcome;
      if (!hook?.enabled || !hook.secret) {
        // Disabled or removed since the delivery was created: nothing may be sent, and retrying will not change it.
        outcome = { kind: 'final', statusCode: null, durationMs: 0, error: 'The post-meeting webhook is no longer enabled', responseBody: null };
      } else {
        const { body } = await buildPayload(em, store, delivery, hook);
        outcome = await sendWebhook(
          {
            url: delivery.url,
            secret: hook.secret,
            deliveryId: delivery.id,
            event: delivery.event,
            body,
            timeoutMs: webhooks.timeoutMs,
            production: webhooks.production,
          },
          () => Context.current().heartbeat({ attempt: input.attempt }),
        );
        // Only a POST that was made counts (docs/decisions.md §12); a webhook disabled since is recorded, not attempted.
        metrics.webhookAttempt(attemptOutcome(outcome));
      }

      const retryable = outcome.kind === 'retry' && input.nextDelaySeconds !== null;
      const nextDelaySeconds = retryable
        ? Math.max(input.nextDelaySeconds!, outcome.kind === 'retry' ? (outcome.retryAfterSeconds ?? 0) : 0)
        : null;
      const status: DeliveryStatus = outcome.kind === 'succeeded' ? 'succeeded' : retryable ? 'retrying' : 'failed';
      const finishedAt = new Date(attemptedAt.getTime() + outcome.durationMs);
      const nextAttemptAt = nextDelaySeconds === null ? null : new Date(finishedAt.getTime() + nextDelaySeconds * 1000);

      await em.transactional(async (tx) => {
        tx.create(WebhookDeliveryAttemptSchema, {
          delivery: delivery.id,
          attempt: input.attempt,
          status: outcome.kind === 'succeeded' ? 'succeeded' : 'failed',
          responseStatusCode: outcome.statusCode,
          durationMs: Math.min(outcome.durationMs, 600_000),
          error: outcome.kind === 'succeeded' ? null : outcome.error.slice(0, 1000),
          responseBody: outcome.responseBody,
          attemptedAt,
          nextAttemptAt,
        });
        await tx.nativeUpdate(
          WebhookDeliverySchema,
          { id: delivery.id },
          {
            status,
            attemptCount: input.attempt,
            lastResponseStatusCode: outcome.statusCode,
            nextAttemptAt,
            completedAt: status === 'succeeded' || status === 'failed' ? finishedAt : null,
          },
        );
      });
      deps.logger.info(
        { deliveryId: delivery.id, attempt: input.attempt, status, responseStatusCode: outcome.statusCode, durationMs: outcome.durationMs },
        'webhook attempt',
      );
      return { status, nextDelaySeconds, responseStatusCode: outcome.statusCode };
    },
  });
}

/** What an attempt recorded before meant for the workflow (a repeated activity answers the same). */
function decisionOf(
  status: DeliveryStatus,
  attempt: { responseStatusCode?: number | null; attemptedAt: Date; durationMs: number; nextAttemptAt?: Date | null },
): AttemptDecision {
  const next = attempt.nextAttemptAt
    ? Math.max(0, Math.round((attempt.nextAttemptAt.getTime() - attempt.attemptedAt.getTime() - attempt.durationMs) / 1000))
    : null;
  return { status, nextDelaySeconds: next, responseStatusCode: attempt.responseStatusCode ?? null };
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;
