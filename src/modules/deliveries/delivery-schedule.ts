// A delivery's retry schedule (docs/decisions.md §10): the delay before each attempt, in seconds, the first usually 0
// (WEBHOOK_RETRY_DELAYS, default 0, 1 m, 5 m, 15 m, 1 h, 4 h). It is read from the configuration here only, and fixed
// in each delivery run's input when the run is handed over (deliveryStart in delivery.service.ts), so a run is
// deterministic whatever the configuration becomes. The run passes each attempt the delay that follows it
// (delayAfter); the attempt's decision (delivery-attempt.ts) may lengthen it for a Retry-After, never shorten it.
import type { Config } from '../../config.ts';

/** Seconds before each attempt; its length is the number of attempts. */
export type RetrySchedule = readonly number[];

/** The configured schedule: the one place WEBHOOK_RETRY_DELAYS becomes a delivery's schedule. */
export function configuredSchedule(config: Pick<Config, 'webhookRetryDelays'>): number[] {
  return [...config.webhookRetryDelays];
}

/** The delay between attempt `attempt` (1-based) and the next one; null when `attempt` is the schedule's last. */
export function delayAfter(schedule: RetrySchedule, attempt: number): number | null {
  return attempt >= 1 && attempt < schedule.length ? schedule[attempt] : null;
}
