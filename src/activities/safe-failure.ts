// Failure messages end up in workflow histories, which operators read in the Temporal UI (docs/decisions.md §13: no secret in
// history). Errors from fetch, the S3 client or the provider may echo the URL they called, signed query and all: every
// activity failure that leaves this process passes through here, so that is the one place URLs lose their secrets:
// each activity set (src/activities/*.ts) returns its activities wrapped by withSafeFailures. The redaction itself is
// src/security/redact.ts (the API applies it too, to failure reasons it shows).
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { redactSecrets } from '../security/redact.ts';

export { redactSecrets };

/**
 * What an activity throws instead of `err`: an ApplicationFailure with a redacted message and no cause chain (a cause
 * would carry the raw message and stack into the history). Its type and retryability are kept.
 */
export function safeFailure(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) {
    return ApplicationFailure.create({
      message: redactSecrets(err.message),
      type: err.type ?? 'Error',
      nonRetryable: err.nonRetryable ?? false,
      ...(err.nextRetryDelay != null ? { nextRetryDelay: err.nextRetryDelay } : {}),
    });
  }
  const error = err instanceof Error ? err : new Error(String(err));
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return ApplicationFailure.create({ message: redactSecrets(`${error.message}${cause}`), type: error.name || 'Error', nonRetryable: false });
}

/** Wraps every activity of a set so its failures go through safeFailure (the worker registers the wrapped ones). */
export function withSafeFailures<T extends Record<string, (...args: never[]) => Promise<unknown>>>(activities: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(activities)) {
    wrapped[name] = async (...args: never[]) => {
      try {
        return await fn(...args);
      } catch (err) {
        // A cancellation stays one (the worker reports it as cancelled only if it is); its message is the SDK's reason.
        if (err instanceof CancelledFailure) throw err;
        throw safeFailure(err);
      }
    };
  }
  return wrapped as T;
}

/** An error class a stage throws for a failure no retry can fix, and the workflow's failure type for it. */
export type PermanentFailure = readonly [new (...args: never[]) => Error, string];

/**
 * How an activity set maps its stages' permanent failures: each listed class becomes a non-retryable ApplicationFailure
 * of its type (the type the workflow checks); anything else is left as it is, to be retried. `map` for a catch that
 * does more with the failure, `run` to call a stage with the mapping.
 */
export function permanentFailures(failures: readonly PermanentFailure[]) {
  const map = (err: unknown): unknown => {
    const known = failures.find(([kind]) => err instanceof kind);
    return known ? ApplicationFailure.nonRetryable((err as Error).message, known[1]) : err;
  };
  return {
    map,
    async run<T>(stage: () => Promise<T>): Promise<T> {
      try {
        return await stage();
      } catch (err) {
        throw map(err);
      }
    },
  };
}
