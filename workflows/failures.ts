// How workflows read the failures of their activities and children: one way, so a stored reason reads the same whatever
// step failed. Workflow code (deterministic): imports the workflow SDK only.
import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure } from '@temporalio/workflow';

/** Whether `err` (an activity's failure, or the failure itself) is an ApplicationFailure of `type`. */
export function isFailureOfType(err: unknown, type: string): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type === type;
}

/**
 * The innermost message, through activity and child-workflow failures: "transcription provider refused: HTTP 401 ..."
 * rather than "Activity task failed". Activity messages are already free of secrets (src/activities/safe-failure.ts).
 */
export function failureMessage(err: unknown): string {
  let cause: unknown = err;
  while ((cause instanceof ActivityFailure || cause instanceof ChildWorkflowFailure) && cause.cause) cause = cause.cause;
  return cause instanceof Error ? cause.message : String(err);
}
