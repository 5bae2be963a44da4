// Failure messages end up in workflow histories, which operators read in the Temporal UI (DECISIONS §13: no secret in
// history). Errors from fetch, the S3 client or the provider may echo the URL they called, signed query and all: every
// activity failure that leaves this process passes through here, so that is the one place URLs lose their secrets:
// each activity set (src/activities/*.ts) returns its activities wrapped by withSafeFailures.
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';

/** A URL up to whitespace or a quote; punctuation that ends a sentence ("…/x.wav: 503") is not part of it. */
const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*[^\s"'<>.,:;)]/gi;
/** Key=value pairs that carry credentials even outside a URL (a signed query pasted in a message, a header dump). */
const SECRET_PAIR = /\b(sig|signature|x-amz-[a-z-]+|token|access_token|api_key|apikey|key|secret|password|expires)=[^\s&"']+/gi;
const BEARER = /\b(bearer|basic)\s+[a-z0-9._~+/=-]+/gi;

/** The message without query strings, fragments, user info or credential-looking pairs: scheme, host and path remain. */
export function redactSecrets(message: string): string {
  return message
    .replace(URL_PATTERN, (raw) => {
      try {
        const url = new URL(raw);
        return `${url.protocol}//${url.host}${url.pathname}`;
      } catch {
        return '[url]';
      }
    })
    .replace(SECRET_PAIR, (_match, name: string) => `${name}=[redacted]`)
    .replace(BEARER, (_match, scheme: string) => `${scheme} [redacted]`);
}

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
