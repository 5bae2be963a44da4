import type { IncomingMessage } from 'node:http';
import type { Options } from 'express-rate-limit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Orm } from '../db/orm.ts';
import { ApiError, rateLimited, serviceUnavailable } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import type { TrustProxy } from '../security/trust-proxy.ts';
import { addressKey, clientAddress } from './client-address.ts';
import { PostgresRateLimitStore } from './rate-limit.ts';

const WINDOW_MS = 60_000;

/**
 * Limits before authentication (docs/decisions.md §14): per client address, at most `perMinute` failed credentials (a wrong API
 * key, tenant or participant token, admin key, refresh token, a WebSocket's token, a bad provider signature) and calls
 * of the public token operations, in a fixed one-minute window; then `429 RATE_LIMITED` with `Retry-After` for that
 * address's requests that are not yet authenticated, until the window ends. Loopback is not exempt.
 *
 * The windows are the tenant limiter's (src/http/rate-limit.ts: `rate_limit_windows` in PostgreSQL, claimed in blocks),
 * so the count is shared by every API instance. The gate in front of authentication reads only what this instance
 * holds of the window (no query): an instance that has not yet seen the address's window used up learns it with that
 * address's next failure there, so at most one more credential per instance is looked up after the limit.
 *
 * Fails closed: when the window cannot be counted (the database is unreachable) the request is answered `503
 * SERVICE_UNAVAILABLE` with `Retry-After`, not let through. 503 rather than 429: the client did nothing wrong, the
 * credential check needs the same database anyway, and a well-behaved client retries a 503 later.
 */
export class AuthFailureLimiter {
  readonly perMinute: number;
  private readonly store: PostgresRateLimitStore;
  private readonly trust: TrustProxy;
  private readonly logger: Logger;

  constructor(deps: { orm: Orm; perMinute: number; trust: TrustProxy; logger: Logger }) {
    this.perMinute = deps.perMinute;
    this.trust = deps.trust;
    this.logger = deps.logger;
    this.store = new PostgresRateLimitStore(deps.orm);
    this.store.init({ windowMs: WINDOW_MS, limit: deps.perMinute } as Options);
  }

  /** The limiter's key for a request or an upgrade. */
  keyOf(req: IncomingMessage): string {
    return `addr:${addressKey(clientAddress(req, this.trust))}`;
  }

  /** The refusal for an address whose window is used up, or undefined; no database query. */
  refusal(key: string): ApiError | undefined {
    const endsAt = this.store.exhaustedUntil(key);
    return endsAt === undefined ? undefined : this.tooMany(endsAt);
  }

  /** Counts one failure or public call; returns the refusal when it went over the limit. Throws 503 when it cannot count. */
  async count(key: string): Promise<ApiError | undefined> {
    let info;
    try {
      info = await this.store.increment(key);
    } catch (err) {
      this.logger.error({ err }, 'failed-credential counter unavailable; refusing unauthenticated request');
      throw serviceUnavailable();
    }
    return info.totalHits > this.perMinute ? this.tooMany(info.resetTime?.getTime() ?? Date.now() + WINDOW_MS) : undefined;
  }

  /** In front of authentication: an address over the limit is refused before its credential is looked up. */
  readonly gate: RequestHandler = (req, _res, next) => next(this.refusal(this.keyOf(req)));

  /** The public token operations: every call counts, before anything reads the body or the database. */
  readonly publicCall: RequestHandler = async (req, _res, next) => next(this.refusal(this.keyOf(req)) ?? (await this.count(this.keyOf(req))));

  /** Wraps a credential check: a 401 it reports counts as a failure of the address (an accepted credential does not). */
  countingFailures(check: RequestHandler): RequestHandler {
    return async (req: Request, res: Response, next: NextFunction) => {
      const checked = (err?: unknown) => {
        if (!(err instanceof ApiError) || err.status !== 401) return next(err);
        this.count(this.keyOf(req)).then(
          (refused) => next(refused ?? err),
          (unavailable: unknown) => next(unavailable),
        );
      };
      // The check may report through next() or by rejecting (an async handler throwing): both end up here.
      await Promise.resolve(check(req, res, checked)).catch(checked);
    };
  }

  private tooMany(endsAt: number): ApiError {
    return rateLimited(`More than ${this.perMinute} failed or unauthenticated requests per minute from this address`, endsAt);
  }
}
