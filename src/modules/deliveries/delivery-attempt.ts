// One attempt of a webhook delivery (docs/decisions.md §10) as four named stages with explicit dependencies:
//   prepare  load the delivery; an attempt already recorded (or a delivery already finished) answers as it did; else
//            the tenant's current webhook and the payload built afresh, as a signed request (or refused: disabled since)
//   send     the POST (delivery-sender.ts), counted in convene_webhook_attempts_total
//   decide   succeeded / retry at T / failed: the outcome against the run's schedule (delivery-schedule.ts)
//   record   the attempt row and the delivery's new status, in one transaction
// The activity (src/activities/deliveries.ts attemptWebhookDelivery) forks the entity manager, calls them in this
// order, heartbeats while the POST is in flight, and turns DeliveryGone into a non-retryable failure. The URL, the
// secret and the payload stay in this process: the workflow gets ids, numbers and statuses (docs/decisions.md §13).
import type { EntityManager } from '@mikro-orm/postgresql';
import { metrics } from '../../metrics/metrics.ts';
import type { ObjectStore } from '../../storage/object-store.ts';
import { TenantSchema } from '../tenants/tenant.entity.ts';
import type { TenantService } from '../tenants/tenant.service.ts';
import { buildPayload, buildTestPayload } from './delivery-payload.ts';
import { attemptOutcome, sendWebhook, type SendOutcome, type SendRequest } from './delivery-sender.ts';
import { WebhookDeliveryAttemptSchema, WebhookDeliverySchema, type DeliveryStatus, type WebhookDelivery } from './delivery.entity.ts';
import type { WebhookSettings } from './webhook-settings.ts';
import { webhookAccepts } from './webhook-target.ts';

/** Stored attempt errors are cut to this many characters; durations to ten minutes. */
const MAX_ERROR_CHARS = 1000;
const MAX_STORED_DURATION_MS = 600_000;
/** The error recorded for an attempt the tenant's settings no longer allow (docs/webhooks.md). */
export const WEBHOOK_NO_LONGER_ENABLED = 'The post-meeting webhook is no longer enabled';

/** The delivery's row is gone: nothing to attempt, and retrying will not bring it back. */
export class DeliveryGone extends Error {
  constructor(deliveryId: string) {
    super(`delivery ${deliveryId} no longer exists`);
    this.name = 'DeliveryGone';
  }
}

/** What the run asks for: attempt n of a delivery, with the delay its schedule puts after it. */
export interface AttemptInput {
  deliveryId: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** The schedule's delay before the next attempt (delayAfter); null when this is the last one. */
  nextDelaySeconds: number | null;
}

/** What the run gets back (workflows/webhook-delivery.ts): ids, numbers and statuses only. */
export interface AttemptReply {
  /** The delivery's status after this attempt. */
  status: DeliveryStatus;
  /** How long the workflow sleeps before the next attempt (null: no next attempt). */
  nextDelaySeconds: number | null;
  /** The receiver's HTTP status, null on timeout or network error. */
  responseStatusCode: number | null;
}

/** What an attempt's outcome means for the delivery. `finishedAt`: when the attempt ended (its start + its duration). */
export type AttemptDecision =
  | { kind: 'succeeded'; finishedAt: Date }
  | { kind: 'retry'; finishedAt: Date; delaySeconds: number; at: Date }
  | { kind: 'failed'; finishedAt: Date };

export type PreparedAttempt =
  /** Nothing to send: the attempt was recorded before (its worker died after recording), or the delivery is finished. */
  | { kind: 'answered'; reply: AttemptReply }
  | { kind: 'send'; delivery: WebhookDelivery; request: SendRequest }
  /** Nothing may be sent (the webhook was disabled or removed since): recorded as this outcome, never POSTed. */
  | { kind: 'refused'; delivery: WebhookDelivery; outcome: SendOutcome };

export interface PrepareDeps {
  store: ObjectStore;
  tenants: Pick<TenantService, 'effectiveConfig'>;
  webhooks: Pick<WebhookSettings, 'timeoutMs' | 'production'>;
}

/** prepare: repeatable, so an attempt already recorded is answered from its row and never made again. */
export async function prepareAttempt(em: EntityManager, deps: PrepareDeps, input: AttemptInput): Promise<PreparedAttempt> {
  const delivery = await em.findOne(WebhookDeliverySchema, { id: input.deliveryId });
  if (!delivery) throw new DeliveryGone(input.deliveryId);
  const recorded = await em.findOne(WebhookDeliveryAttemptSchema, { delivery: delivery.id, attempt: input.attempt });
  if (recorded) return { kind: 'answered', reply: replyOfRecorded(delivery.status, recorded) };
  if (delivery.status === 'succeeded' || delivery.status === 'failed') {
    return { kind: 'answered', reply: { status: delivery.status, nextDelaySeconds: null, responseStatusCode: delivery.lastResponseStatusCode ?? null } };
  }
  const tenant = await em.findOne(TenantSchema, { id: delivery.tenant.id });
  const hook = tenant ? deps.tenants.effectiveConfig(tenant).post_meeting_webhook : null;
  if (!webhookAccepts(hook, delivery.event)) {
    // Retrying will not change it: a final outcome, recorded as a failed attempt.
    return { kind: 'refused', delivery, outcome: { kind: 'final', statusCode: null, durationMs: 0, error: WEBHOOK_NO_LONGER_ENABLED, responseBody: null } };
  }
  const { body } = delivery.event === 'webhook.test' ? buildTestPayload(delivery) : await buildPayload(em, deps.store, delivery, hook);
  const { timeoutMs, production } = deps.webhooks;
  return {
    kind: 'send',
    delivery,
    request: { url: delivery.url, secret: hook.secret, deliveryId: delivery.id, event: delivery.event, body, timeoutMs, production },
  };
}

/** send: the POST; `onProgress` is called every few seconds while it is in flight (the activity heartbeats). */
export async function sendAttempt(request: SendRequest, onProgress?: () => void): Promise<SendOutcome> {
  const outcome = await sendWebhook(request, onProgress);
  // Only a POST that was made counts (docs/decisions.md §12); a refused attempt is recorded, not counted.
  metrics.webhookAttempt(attemptOutcome(outcome));
  return outcome;
}

/**
 * decide (docs/decisions.md §10): a 2xx succeeds; a final answer (3xx, 4xx but 408/429, a webhook disabled since)
 * fails; a retryable one (5xx, 408, 429, timeout, network error) retries after the schedule's next delay, or the
 * receiver's Retry-After when that is longer (already bounded by the sender), and fails when the schedule has no next
 * attempt. Delays count from the end of the attempt.
 */
export function decide(outcome: SendOutcome, run: { attemptedAt: Date; nextDelaySeconds: number | null }): AttemptDecision {
  const finishedAt = new Date(run.attemptedAt.getTime() + outcome.durationMs);
  if (outcome.kind === 'succeeded') return { kind: 'succeeded', finishedAt };
  if (outcome.kind === 'final' || run.nextDelaySeconds === null) return { kind: 'failed', finishedAt };
  const delaySeconds = Math.max(run.nextDelaySeconds, outcome.retryAfterSeconds ?? 0);
  return { kind: 'retry', finishedAt, delaySeconds, at: new Date(finishedAt.getTime() + delaySeconds * 1000) };
}

/** The delivery's status a decision leaves. */
export function statusAfter(decision: AttemptDecision): DeliveryStatus {
  return decision.kind === 'retry' ? 'retrying' : decision.kind;
}

/** record: the attempt as a row (keyed on delivery and attempt number) and the delivery's new status, together. */
export async function recordAttempt(
  em: EntityManager,
  attempt: { delivery: WebhookDelivery; number: number; attemptedAt: Date },
  outcome: SendOutcome,
  decision: AttemptDecision,
): Promise<void> {
  const status = statusAfter(decision);
  const nextAttemptAt = decision.kind === 'retry' ? decision.at : null;
  await em.transactional(async (tx) => {
    tx.create(WebhookDeliveryAttemptSchema, {
      delivery: attempt.delivery.id,
      attempt: attempt.number,
      status: outcome.kind === 'succeeded' ? 'succeeded' : 'failed',
      responseStatusCode: outcome.statusCode,
      durationMs: Math.min(outcome.durationMs, MAX_STORED_DURATION_MS),
      error: outcome.kind === 'succeeded' ? null : outcome.error.slice(0, MAX_ERROR_CHARS),
      responseBody: outcome.responseBody,
      attemptedAt: attempt.attemptedAt,
      nextAttemptAt,
    });
    await tx.nativeUpdate(
      WebhookDeliverySchema,
      { id: attempt.delivery.id },
      {
        status,
        attemptCount: attempt.number,
        lastResponseStatusCode: outcome.statusCode,
        nextAttemptAt,
        completedAt: decision.kind === 'retry' ? null : decision.finishedAt,
      },
    );
  });
}

/** The run's answer for a decision just recorded. */
export function replyOf(outcome: SendOutcome, decision: AttemptDecision): AttemptReply {
  return {
    status: statusAfter(decision),
    nextDelaySeconds: decision.kind === 'retry' ? decision.delaySeconds : null,
    responseStatusCode: outcome.statusCode,
  };
}

/** The run's answer for an attempt recorded before: the same as when it was made (a repeated activity answers alike). */
export function replyOfRecorded(
  status: DeliveryStatus,
  attempt: { responseStatusCode?: number | null; attemptedAt: Date; durationMs: number; nextAttemptAt?: Date | null },
): AttemptReply {
  const next = attempt.nextAttemptAt
    ? Math.max(0, Math.round((attempt.nextAttemptAt.getTime() - attempt.attemptedAt.getTime() - attempt.durationMs) / 1000))
    : null;
  return { status, nextDelaySeconds: next, responseStatusCode: attempt.responseStatusCode ?? null };
}
