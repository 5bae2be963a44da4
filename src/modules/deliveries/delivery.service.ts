// The delivery log (docs/decisions.md §10): create a delivery (post-meeting, re-send and the test event share createDelivery),
// list, get with attempts, re-send, send a test event. Every query is scoped to the caller's tenant: another tenant's delivery is simply not found.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { v7 as uuidv7, validate as isUuid } from 'uuid';
import { ApiError, notFound } from '../../domain/errors.ts';
import { tenantOf, type Principal } from '../../domain/principal.ts';
import type { Logger } from '../../logger.ts';
import type { Handovers } from '../../handover/handover.ts';
import { starts } from '../../handover/starts.ts';
import { TenantSchema } from '../tenants/tenant.entity.ts';
import type { TenantService } from '../tenants/tenant.service.ts';
import {
  WebhookDeliveryAttemptSchema,
  WebhookDeliverySchema,
  type DeliveryEvent,
  type DeliveryStatus,
  type WebhookDelivery,
  type WebhookDeliveryAttempt,
} from './delivery.entity.ts';
import { TEST_EVENT_SCHEDULE, webhookAccepts } from './webhook-target.ts';

export interface DeliverySubject {
  tenantId: string;
  /** Null for the test event, which is about no meeting. */
  roomId: string | null;
  recordingId: string | null;
  /** `meeting.recording_ready` when absent. */
  event?: DeliveryEvent;
  resentFrom?: string | null;
  /** The post-meeting run whose result is delivered (docs/decisions.md §9 re-runs); 1 when absent. */
  postMeetingRun?: number;
}

/**
 * The one creation function: a `pending` delivery to the tenant's CURRENT webhook URL, or null when the tenant's webhook
 * does not accept the event (webhook-target.ts). An original delivery (not a re-send) exists once per recording and post-meeting run: a repeat
 * returns the first.
 */
export async function createDelivery(
  em: EntityManager,
  tenants: Pick<TenantService, 'effectiveConfig'>,
  subject: DeliverySubject,
): Promise<WebhookDelivery | null> {
  const tenant = await em.findOne(TenantSchema, { id: subject.tenantId });
  const hook = tenant ? tenants.effectiveConfig(tenant).post_meeting_webhook : null;
  const event = subject.event ?? 'meeting.recording_ready';
  if (!webhookAccepts(hook, event)) return null;
  const resentFrom = subject.resentFrom ?? null;
  const postMeetingRun = subject.postMeetingRun ?? 1;
  const original = { recordingId: subject.recordingId, postMeetingRun, resentFrom: null };
  if (!resentFrom && subject.recordingId) {
    const existing = await em.findOne(WebhookDeliverySchema, original);
    if (existing) return existing;
  }
  const delivery = em.create(WebhookDeliverySchema, {
    id: uuidv7(),
    tenant: subject.tenantId,
    roomId: subject.roomId,
    recordingId: subject.recordingId,
    event,
    status: 'pending',
    url: hook.url,
    resentFrom,
    postMeetingRun,
    attemptCount: 0,
    nextAttemptAt: new Date(),
  });
  try {
    await em.flush();
  } catch (err) {
    // A concurrent first creation for this recording won: use its row.
    if (!(err instanceof UniqueConstraintViolationException) || !subject.recordingId) throw err;
    em.clear();
    return em.findOne(WebhookDeliverySchema, original);
  }
  return delivery;
}

/**
 * The hand-over of a delivery's workflow (post-meeting's, re-sends and test events alike), with the configured schedule,
 * or the test event's single attempt.
 */
export function deliveryStart(delivery: WebhookDelivery, configuredDelaysSeconds: number[]) {
  const retryDelaysSeconds = delivery.event === 'webhook.test' ? [...TEST_EVENT_SCHEDULE] : configuredDelaysSeconds;
  return starts.webhookDelivery({
    deliveryId: delivery.id,
    event: delivery.event,
    tenantId: delivery.tenant.id,
    roomId: delivery.roomId ?? null,
    recordingId: delivery.recordingId ?? null,
    resentFrom: delivery.resentFrom ?? null,
    retryDelaysSeconds,
  });
}

export interface DeliveryServiceDeps {
  tenants: Pick<TenantService, 'effectiveConfig'>;
  handovers: Handovers;
  /** The configured schedule (delivery-schedule.ts): fixed in each delivery's input when it is handed over. */
  retryDelaysSeconds: number[];
  logger: Logger;
}

export class DeliveryService {
  private readonly deps: DeliveryServiceDeps;

  constructor(deps: DeliveryServiceDeps) {
    this.deps = deps;
  }

  async list(em: EntityManager, principal: Principal, query: { limit: number; offset: number; status?: DeliveryStatus }) {
    const where = { tenant: tenantOf(principal), ...(query.status ? { status: query.status } : {}) };
    const [items, total] = await em.findAndCount(WebhookDeliverySchema, where, {
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      limit: query.limit,
      offset: query.offset,
    });
    return { items, total };
  }

  async get(em: EntityManager, principal: Principal, id: string): Promise<WebhookDelivery> {
    const tenantId = tenantOf(principal);
    const delivery = isUuid(id) ? await em.findOne(WebhookDeliverySchema, { id, tenant: tenantId }) : null;
    if (!delivery) throw notFound('Webhook delivery');
    return delivery;
  }

  async attempts(em: EntityManager, delivery: WebhookDelivery): Promise<WebhookDeliveryAttempt[]> {
    return em.find(WebhookDeliveryAttemptSchema, { delivery: delivery.id }, { orderBy: { attempt: 'asc' } });
  }

  /** A new delivery of the same event to the current URL, started durably (docs/decisions.md §10). */
  async resend(em: EntityManager, principal: Principal, id: string): Promise<WebhookDelivery> {
    const original = await this.get(em, principal, id);
    if (original.status === 'pending' || original.status === 'retrying') {
      throw new ApiError('INVALID_STATE', `The delivery is still ${original.status}; re-send it once it has succeeded or failed`);
    }
    // The row and its workflow's hand-over commit together (docs/decisions.md §15): never a pending delivery nothing sends.
    const { handovers } = this.deps;
    return handovers.transaction(em, async (tx) => {
      const delivery = await createDelivery(tx, this.deps.tenants, {
        tenantId: original.tenant.id,
        roomId: original.roomId ?? null,
        recordingId: original.recordingId ?? null,
        resentFrom: original.id,
        postMeetingRun: original.postMeetingRun,
        event: original.event,
      });
      if (!delivery) throw new ApiError('INVALID_STATE', 'The post-meeting webhook is not configured or not enabled');
      await handovers.record(tx, deliveryStart(delivery, this.deps.retryDelaysSeconds));
      return delivery;
    });
  }

  /**
   * One signed `webhook.test` event to the tenant's configured webhook, as a delivery of one attempt (docs/decisions.md
   * §10): the row and its workflow's hand-over commit together, like every delivery.
   */
  async sendTest(em: EntityManager, principal: Principal): Promise<WebhookDelivery> {
    const tenantId = tenantOf(principal);
    const { handovers } = this.deps;
    return handovers.transaction(em, async (tx) => {
      const delivery = await createDelivery(tx, this.deps.tenants, { tenantId, roomId: null, recordingId: null, event: 'webhook.test' });
      if (!delivery) {
        throw new ApiError('INVALID_STATE', 'No post-meeting webhook is configured: set post_meeting_webhook.url and secret first');
      }
      await handovers.record(tx, deliveryStart(delivery, this.deps.retryDelaysSeconds));
      return delivery;
    });
  }
}
