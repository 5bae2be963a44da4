import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { ApiError, errorBody, notFound, schemaViolations, serviceUnavailable, validationError, type ErrorDetail } from '../domain/errors.ts';

// The HTTP side of errors: whatever a parser, the validator or a handler throws becomes the envelope of
// src/domain/errors.ts with its status, in one middleware.

interface ValidatorIssue {
  path?: string;
  message?: string;
  errorCode?: string;
}

interface ValidatorError {
  status: number;
  message: string;
  errors?: ValidatorIssue[];
}

/**
 * Under `oneOf: [Object, null]` Ajv reports, besides the real violations inside the object (`/body/x/url must be
 * string`), that the value is not null and matches no branch. Once a deeper path names what is wrong those two lines
 * only add noise; without a deeper one (e.g. a string given) they are the whole story and stay.
 */
function withoutBranchNoise(issues: ValidatorIssue[]): ValidatorIssue[] {
  const isNoise = (i: ValidatorIssue) =>
    i.errorCode === 'oneOf.openapi.validation' || (i.errorCode === 'type.openapi.validation' && i.message === 'must be null');
  // Every path that has an issue below it, collected once: linear in the issues (a body may carry thousands).
  const parents = new Set<string>();
  for (const issue of issues) {
    const path = issue.path ?? '';
    if (path.startsWith('/')) parents.add('');
    for (let cut = path.lastIndexOf('/'); cut > 0; cut = path.lastIndexOf('/', cut - 1)) parents.add(path.slice(0, cut));
  }
  return issues.filter((i) => !(isNoise(i) && parents.has(i.path ?? '')));
}

const isValidatorError = (err: unknown): err is ValidatorError =>
  typeof err === 'object' && err !== null && 'status' in err && Array.isArray((err as ValidatorError).errors);

/** Turns anything thrown by the validator, body parser or a handler into an ApiError. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as { type?: string; status?: number; message?: string };
  if (e?.type === 'entity.too.large') return new ApiError('PAYLOAD_TOO_LARGE', 'Request body exceeds 1 MiB');
  if (e?.type === 'entity.parse.failed') return validationError('/body', 'Request body is not valid JSON');
  if (isValidatorError(err)) {
    // Response validation failures are our bug, never the client's: report them as 500.
    if (err.status >= 500) return new ApiError('INTERNAL_ERROR', 'Internal error');
    if (err.status === 415) return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
    if (err.status === 404) return notFound('Route');
    // Unreachable in practice: httpMethodSemantics (methods.ts) answers 405 with Allow before the validator runs.
    if (err.status === 405) return new ApiError('METHOD_NOT_ALLOWED', err.message);
    if (err.status === 413) return new ApiError('PAYLOAD_TOO_LARGE', 'Request body exceeds 1 MiB');
    const details: ErrorDetail[] = withoutBranchNoise(err.errors!).map((v) => ({
      path: v.path ?? '',
      message: v.message ?? 'invalid',
    }));
    return schemaViolations(details);
  }
  if (isDependencyUnavailable(err)) {
    return serviceUnavailable();
  }
  return new ApiError('INTERNAL_ERROR', 'Internal error');
}

// Socket-level failures reaching a dependency, and PostgreSQL's own "not now" answers: SQLSTATE class 08 (connection
// exception), 57P01-57P03 (shut down by the administrator, crash recovery, cannot connect now), 53300 (too many
// connections). The database restarting is not a bug of ours: 503 + Retry-After (docs/decisions.md §3), never a 500.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '53300']);

function isDependencyUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; name?: unknown };
  if (typeof e?.code === 'string' && (UNAVAILABLE_CODES.has(e.code) || /^08[0-9A-Z]{3}$/.test(e.code))) return true;
  if (e?.name === 'ConnectionException') return true;
  // node-postgres reports a dropped connection without a code.
  return typeof e?.message === 'string' && /Connection terminated|Client has encountered a connection error/.test(e.message);
}

export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const apiError = toApiError(err);
    if (apiError.status >= 500) {
      logger.error({ err, request_id: req.id, method: req.method, path: req.path }, 'request failed');
    }
    if (res.headersSent) return;
    res.set(apiError.headers);
    res.status(apiError.status).json(errorBody(apiError, req.id));
  };
}

export const routeNotFound: RequestHandler = (_req, _res, next) => next(notFound('Route'));
