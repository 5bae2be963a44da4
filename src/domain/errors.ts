// The error catalogue of the whole service (docs/decisions.md §3): what services, activities, the HTTP layer and the WebSocket
// gateway throw and report. It lives outside src/http/ so that services and worker activities depend on no HTTP code;
// src/http/error-responses.ts turns anything thrown into this envelope for a response.
// The one catalogue of error codes (docs/decisions.md §3): each code is declared once, with its HTTP status.
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  INVALID_STATE: 400,
  UNAUTHORIZED: 401,
  TOKEN_EXPIRED: 401,
  INVALID_REFRESH_TOKEN: 401,
  INVALID_SIGNATURE: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  NO_ACTIVE_RECORDING: 404,
  METHOD_NOT_ALLOWED: 405,
  UPGRADE_REQUIRED: 426,
  RECORDING_IN_PROGRESS: 409,
  ROOM_ENDED: 409,
  ROOM_NAME_TAKEN: 409,
  DUPLICATE_PARTICIPANT: 409,
  LIMIT_EXCEEDED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
}

/** A failure the client should see: handlers and services throw it, the error middleware renders it. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: unknown;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: { details?: unknown; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export const notFound = (what = 'Resource') => new ApiError('NOT_FOUND', `${what} not found`);
export const forbidden = (message = 'Not allowed') => new ApiError('FORBIDDEN', message);
export const validationError = (path: string, message: string) =>
  new ApiError('VALIDATION_ERROR', message, { details: [{ path, message }] satisfies ErrorDetail[] });

/** `details` of a VALIDATION_ERROR lists at most this many violations (docs/decisions.md §3, §16). */
export const MAX_LISTED_VIOLATIONS = 20;

/**
 * 400 VALIDATION_ERROR for violations of the schema or of a rule, one detail each. Past MAX_LISTED_VIOLATIONS (or when
 * the finder stopped looking, `moreFound`) the list is cut and its last entry says so, so a body with half a million
 * wrong items answers in a few KiB.
 */
export function schemaViolations(issues: ErrorDetail[], moreFound = false): ApiError {
  const cut = moreFound || issues.length > MAX_LISTED_VIOLATIONS;
  const listed = cut ? issues.slice(0, MAX_LISTED_VIOLATIONS - 1) : issues;
  const details = cut ? [...listed, { path: '', message: `more violations were found; the first ${listed.length} are listed` }] : listed;
  return new ApiError('VALIDATION_ERROR', 'Request does not match the API schema', { details });
}

/**
 * 503 with `Retry-After` (docs/decisions.md §3): something this request needs is away for now, and the client may
 * retry the same request after `retryAfterSeconds`. Without a message: the generic one, naming no dependency.
 */
export const serviceUnavailable = (message = 'A service this request needs is unavailable; retry later', retryAfterSeconds = 5) =>
  new ApiError('SERVICE_UNAVAILABLE', message, { headers: { 'Retry-After': String(retryAfterSeconds) } });

/**
 * 429 RATE_LIMITED with `Retry-After` (docs/decisions.md §3, §14): the whole seconds until the window that refused the
 * request ends (`windowEndsAtMs`, local clock), at least 1. Every rate limit answers through this one function: the
 * per-tenant rate (src/http/rate-limit.ts), failed credentials per address (src/http/address-limit.ts) and WebSocket
 * upgrades per address (src/realtime/gateway.ts).
 */
export function rateLimited(message: string, windowEndsAtMs: number, nowMs = Date.now()): ApiError {
  const retryAfterSeconds = Math.max(1, Math.ceil((windowEndsAtMs - nowMs) / 1000));
  return new ApiError('RATE_LIMITED', message, { headers: { 'Retry-After': String(retryAfterSeconds) } });
}

/** The error envelope, as spec/openapi.yaml's `Error` schema describes it. */
export function errorBody(err: ApiError, requestId: string) {
  return {
    error: {
      code: err.code,
      message: err.message,
      ...(err.details === undefined ? {} : { details: err.details }),
      request_id: requestId,
    },
  };
}
