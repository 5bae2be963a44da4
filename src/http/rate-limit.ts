import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { ApiError } from './errors.ts';

/**
 * Per-tenant request rate (DECISIONS §3): a window of one minute, counted per API instance (so with N instances a
 * tenant gets up to N × the limit; the default is generous on purpose). Runs after authentication, keyed by tenant.
 */
export function tenantRateLimit(perMinute: number): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    keyGenerator: (req) => {
      const p = req.principal;
      return p && p.kind !== 'admin' ? `tenant:${p.tenantId}` : 'admin';
    },
    skip: (req) => req.principal?.kind === 'admin',
    handler: (_req, res, next, options) => {
      const retryAfter = Math.ceil(options.windowMs / 1000);
      next(new ApiError('RATE_LIMITED', `More than ${options.limit} requests per minute`, { headers: { 'Retry-After': String(retryAfter) } }));
    },
  });
}
