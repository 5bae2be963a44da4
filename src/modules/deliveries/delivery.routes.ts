import type { EntityManager } from '@mikro-orm/postgresql';
import type { components } from '../../../generated/openapi.ts';
import type { OperationHandlers } from '../../http/router.ts';
import type { DeliveryStatus, WebhookDelivery, WebhookDeliveryAttempt } from './delivery.entity.ts';
import type { DeliveryService } from './delivery.service.ts';

type Schemas = components['schemas'];
const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

export function deliverySummary(d: WebhookDelivery): Schemas['WebhookDeliverySummary'] {
  return {
    id: d.id,
    event: d.event,
    status: d.status,
    url: d.url,
    room_id: d.roomId,
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

// Thin handlers for the delivery log (spec: listWebhookDeliveries, getWebhookDelivery, resendWebhookDelivery).
export function deliveryRoutes(deps: { deliveries: DeliveryService; em: () => EntityManager }): OperationHandlers {
  const { deliveries, em } = deps;
  const id = (params: Record<string, unknown>) => params.id as string;

  return {
    listWebhookDeliveries: async (req, res) => {
      const page = { limit: Number(req.query.limit ?? 20), offset: Number(req.query.offset ?? 0) };
      const status = req.query.status as DeliveryStatus | undefined;
      const { items, total } = await deliveries.list(em(), req.principal!, { ...page, ...(status ? { status } : {}) });
      res.json({ data: items.map(deliverySummary), meta: { total, ...page } });
    },
    getWebhookDelivery: async (req, res) => {
      const delivery = await deliveries.get(em(), req.principal!, id(req.params));
      const attempts = await deliveries.attempts(em(), delivery);
      res.json({ data: { ...deliverySummary(delivery), attempts: attempts.map(attemptView) } });
    },
    resendWebhookDelivery: async (req, res) => {
      const delivery = await deliveries.resend(em(), req.principal!, id(req.params));
      res.status(202).json({ data: deliverySummary(delivery) });
    },
  };
}
