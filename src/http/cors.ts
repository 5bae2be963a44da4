import type { RequestHandler, Response } from 'express';
import onHeaders from 'on-headers';
import type { AllowedOrigins } from './allowed-origins.ts';
import { specPathOf, type SpecPath } from './methods.ts';

/** Request headers a browser may send (docs/decisions.md §14); a preflight is answered with the requested ones among them. */
const ALLOWED_REQUEST_HEADERS = ['Authorization', 'X-API-Key', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'];
const ALLOWED_BY_LOWER = new Map(ALLOWED_REQUEST_HEADERS.map((h) => [h.toLowerCase(), h]));
/**
 * Response headers a page may read: the request id, Retry-After (429, 503), Location (201), and the rate-limit headers
 * the tenant limiter sends (express-rate-limit's `draft-7` mode: `RateLimit` and `RateLimit-Policy`).
 */
export const EXPOSED_HEADERS = 'X-Request-Id, Retry-After, Location, RateLimit, RateLimit-Policy';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/**
 * CORS for every operation (docs/decisions.md §14), in one middleware placed before method handling, parsing and
 * authentication, so preflights, refusals and errors (401, 404, 429, …) all carry the same headers.
 *
 * - A preflight carries no credentials: the origin is judged "before a tenant is known" (some tenant lists it, or the
 *   operator patterns match) and answered here with 204; a disallowed origin gets the 204 without any
 *   `Access-Control-Allow-*` header, so the browser stops there.
 * - An actual request gets the headers by the same rule now, and once the response's headers are written, for a
 *   request that authenticated as a tenant or participant, by that tenant's own list (or the operator patterns when it
 *   has none): an origin another tenant lists is withdrawn again. Every tenant list is part of the union, so the
 *   tenant's rule can only take away.
 * Never `*`, never `Access-Control-Allow-Credentials` (no cookies are used).
 */
export function cors(deps: { paths: SpecPath[]; origins: AllowedOrigins }): RequestHandler {
  const { paths, origins } = deps;
  return async (req, res, next) => {
    res.vary('Origin'); // the answer depends on Origin whichever it is: no cache may serve one origin's to another
    const origin = req.get('origin');
    if (origin === undefined) return next();
    await origins.fresh();
    const allowed = origins.allowedBeforeTenant(origin);

    const path = specPathOf(paths, req.path);
    const requestedMethod = req.get('access-control-request-method');
    if (req.method === 'OPTIONS' && requestedMethod !== undefined && path) {
      if (allowed) {
        res.set({
          'Access-Control-Allow-Origin': origin,
          'Access-Control-Allow-Methods': path.declared,
          'Access-Control-Max-Age': PREFLIGHT_MAX_AGE_SECONDS,
        });
        const headers = requestedHeaders(req.get('access-control-request-headers'));
        if (headers) res.set('Access-Control-Allow-Headers', headers);
      }
      return void res.set('Allow', path.allow).status(204).end();
    }

    if (!allowed) return next();
    res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS });
    onHeaders(res, function (this: Response) {
      const tenantId = req.principal && req.principal.kind !== 'admin' ? req.principal.tenantId : undefined;
      if (tenantId !== undefined && !origins.allowedForTenant(tenantId, origin)) {
        this.removeHeader('Access-Control-Allow-Origin');
        this.removeHeader('Access-Control-Expose-Headers');
      }
    });
    next();
  };
}

/** The requested headers this API accepts, in their canonical spelling; the others are left out (the browser refuses). */
function requestedHeaders(requested: string | undefined): string {
  const names = (requested ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean);
  return [...new Set(names.flatMap((h) => ALLOWED_BY_LOWER.get(h) ?? []))].join(', ');
}
