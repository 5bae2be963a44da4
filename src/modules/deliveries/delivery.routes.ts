import type { EntityManager } from '@mikro-orm/postgresql';
import type { components } from '../../../generated/openapi.ts';
import { handler, type Handlers } from '../../http/handler.ts';
import { pageOf } from '../../http/page.ts';
import type { WebhookDelivery, WebhookDeliveryAttempt } from './delivery.entity.ts';
import type { DeliveryService } from './delivery.service.ts';

type Schemas = components['schemas'];
const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

export function deliverySummary(d: WebhookDelivery): Schemas['WebhookDeliverySummary'] {
  return {
    id: d.id,
    event: d.event,
    status: d.status,
    url: d.url,
    room_id: d.roomId ?? null,
    recording_id: d.recordingId ?? null,
    attempt_count: d.attemptCount,
    last_response_status_code: d.lastResponseStatusCode ?? null,
    next_attempt_at: iso(d.nextAttemptAt),
    resent_from: d.resentFrom ?? null,
    created_at: d.createdAt.toISOString(),
    completed_at: iso(d.completedAt),
  };
}

export function attemptView(a: WebhookDeliveryAttempt): Schemas['WebhookDeliveryAttempt'] {
  return {
    attempt: a.attempt,
    status: a.status,
    response_status_code: a.responseStatusCode ?? null,
    duration_ms: a.durationMs,
    error: a.error ?? null,
    attempted_at: a.attemptedAt.toISOString(),
    next_attempt_at: iso(a.nextAttemptAt),
  };
}

// Thin handlers for the delivery log: read the typed input, call the service (which checks access), shape the answer.
export function deliveryRoutes(deps: { deliveries: DeliveryService; em: () => EntityManager }): Handlers {
  const { deliveries, em } = deps;

  return {
    listWebhookDeliveries: handler<'listWebhookDeliveries'>(async ({ query }, principal) => {
      const page = pageOf(query);
      const { items, total } = await deliveries.list(em(), principal, { ...page, ...(query.status ? { status: query.status } : {}) });
      return { status: 200, body: { data: items.map(deliverySummary), meta: { total, ...page } } };
    }),
    getWebhookDelivery: handler<'getWebhookDelivery'>(async ({ params }, principal) => {
      const delivery = await deliveries.get(em(), principal, params.id);
      const attempts = await deliveries.attempts(em(), delivery);
      return { status: 200, body: { data: { ...deliverySummary(delivery), attempts: attempts.map(attemptView) } } };
    }),
    resendWebhookDelivery: handler<'resendWebhookDelivery'>(async ({ params }, principal) => ({
      status: 202,
      body: { data: deliverySummary(await deliveries.resend(em(), principal, params.id)) },
    })),
    sendTestWebhook: handler<'sendTestWebhook'>(async (_input, principal) => ({
      status: 202,
      body: { data: deliverySummary(await deliveries.sendTest(em(), principal)) },
    })),
  };
}
