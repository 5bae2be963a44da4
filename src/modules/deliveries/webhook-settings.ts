// What the delivery activities and the hand-overs of a delivery take from the configuration, read once (the worker and
// the tests build it with webhookSettings; the API's DeliveryService takes the same schedule).
import type { Config } from '../../config.ts';
import { configuredSchedule } from './delivery-schedule.ts';

export interface WebhookSettings {
  /** WEBHOOK_RETRY_DELAYS, in seconds: the delay before each attempt (delivery-schedule.ts). */
  retryDelaysSeconds: number[];
  /** WEBHOOK_TIMEOUT_MS: the whole exchange with the receiver (docs/decisions.md §10: 30 s). */
  timeoutMs: number;
  /** Production: https only, public addresses only, checked at every attempt after DNS resolution. */
  production: boolean;
}

export function webhookSettings(config: Pick<Config, 'webhookRetryDelays' | 'webhookTimeoutMs' | 'nodeEnv'>): WebhookSettings {
  return { retryDelaysSeconds: configuredSchedule(config), timeoutMs: config.webhookTimeoutMs, production: config.nodeEnv === 'production' };
}
