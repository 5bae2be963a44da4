// The retry window of a step that rides out outages: the recording's transfer (INGEST_RETRY_WINDOW,
// docs/decisions.md §7) and each post-meeting step (POST_MEETING_RETRY_WINDOW, docs/decisions.md §9). Transient
// failures (5xx, 429, timeouts, connection errors) are retried by the workflow's policy until the window has passed
// since the step's first attempt; a failure after that is made permanent, with the last failure as its reason. The rule
// (and the workflow's deadline derived from it) is written once, in workflows/shared.ts (withinRetryWindow).
import { ApplicationFailure, Context } from '@temporalio/activity';
import { retryWindowEndedReason, withinRetryWindow } from '../../workflows/shared.ts';

/**
 * What the activity throws for `err`: a non-retryable failure as it is; a retryable one as it is while the window lasts,
 * else a non-retryable failure of `type` saying the window ended. Both instants are the Temporal server's, so the
 * window is measured in workflow time (skipped in time-skipping tests).
 */
export function failureWithinWindow(err: unknown, retryWindowSeconds: number, type: string): unknown {
  if (err instanceof ApplicationFailure && err.nonRetryable) return err;
  const { scheduledTimestampMs, currentAttemptScheduledTimestampMs } = Context.current().info;
  if (withinRetryWindow(scheduledTimestampMs, currentAttemptScheduledTimestampMs, retryWindowSeconds)) return err;
  const last = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.nonRetryable(retryWindowEndedReason(retryWindowSeconds, last), type);
}
