// Activities of the webhook delivery workflow (workflows/webhook-delivery.ts), thin as in Temporal's samples: fork
// the entity manager, call the stages of src/modules/deliveries/ (delivery-attempt.ts: prepare → send → decide →
// record), heartbeat while the POST is in flight, and turn DeliveryGone into a non-retryable failure. Inputs and
// results are ids, numbers and statuses only: the URL, the secret and the payload are resolved in the stages and never
// reach a workflow history (docs/decisions.md §13).
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Orm } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import {
  decide,
  DeliveryGone,
  prepareAttempt,
  recordAttempt,
  replyOf,
  sendAttempt,
  type AttemptInput,
  type AttemptReply,
} from '../modules/deliveries/delivery-attempt.ts';
import type { WebhookSettings } from '../modules/deliveries/webhook-settings.ts';
import type { TenantService } from '../modules/tenants/tenant.service.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import { DELIVERY_FAILURE, RETRYABLE_FAILURE } from '../../workflows/failure-types.ts';
import { withSafeFailures } from './safe-failure.ts';

export { webhookSettings, type WebhookSettings } from '../modules/deliveries/webhook-settings.ts';
export type { AttemptInput, AttemptReply };

export interface DeliveryActivityDeps {
  orm: Orm;
  store: ObjectStore;
  logger: Logger;
  tenants: Pick<TenantService, 'effectiveConfig'>;
  webhooks: WebhookSettings;
}

export function createDeliveryActivities(deps: DeliveryActivityDeps) {
  const { orm } = deps;

  return withSafeFailures({
    /**
     * Attempt n of a delivery (src/modules/deliveries/delivery-attempt.ts). Repeatable: an attempt already recorded
     * (the activity ran, then its worker died) is answered from its row, not made again.
     */
    async attemptWebhookDelivery(input: AttemptInput): Promise<AttemptReply> {
      const begun = performance.now();
      const em = orm.em.fork();
      const prepared = await prepareAttempt(em, deps, input).catch((err: unknown) => {
        throw err instanceof DeliveryGone ? ApplicationFailure.nonRetryable(err.message, DELIVERY_FAILURE.deliveryGone) : err;
      });
      if (prepared.kind === 'answered') return prepared.reply;
      // The server's clock (skipped time on the time-skipping server): when this attempt was scheduled to run.
      const attemptedAt = new Date(Context.current().info.currentAttemptScheduledTimestampMs);
      if (prepared.kind === 'send') refuseIfSuperseded(begun);
      const outcome =
        prepared.kind === 'send'
          ? await sendAttempt(prepared.request, () => Context.current().heartbeat({ attempt: input.attempt }))
          : prepared.outcome;
      const decision = decide(outcome, { attemptedAt, nextDelaySeconds: input.nextDelaySeconds });
      await recordAttempt(em, { delivery: prepared.delivery, number: input.attempt, attemptedAt }, outcome, decision);
      const reply = replyOf(outcome, decision);
      deps.logger.info(
        { deliveryId: input.deliveryId, attempt: input.attempt, status: reply.status, responseStatusCode: outcome.statusCode, durationMs: outcome.durationMs },
        'webhook attempt',
      );
      return reply;
    },
  });
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;

/**
 * Called right before the POST (the attempt's first heartbeat). An attempt that took longer than its heartbeat timeout
 * to prepare (a database that hung, then woke: docs/decisions.md §15) has been given up by Temporal already, and its
 * retry is on the way or running: POSTing now would send the webhook twice (test/integration/faults/
 * postgres-pause-pipeline.test.ts fails without this). It fails instead: retryable, and the server ignores the result
 * of an attempt it timed out anyway. The margin covers the time between the server starting the attempt and this
 * process beginning it.
 */
function refuseIfSuperseded(begunAt: number): void {
  const { heartbeatTimeoutMs } = Context.current().info;
  if (!heartbeatTimeoutMs) return;
  const elapsedMs = performance.now() - begunAt;
  if (elapsedMs >= heartbeatTimeoutMs - SUPERSEDED_MARGIN_MS) {
    throw ApplicationFailure.retryable(`attempt prepared for ${Math.round(elapsedMs)} ms, past its heartbeat timeout: not sending`, RETRYABLE_FAILURE.attemptSuperseded);
  }
}

const SUPERSEDED_MARGIN_MS = 1_000;
