import type { RequestHandler } from 'express';
import { rateLimit, type ClientRateLimitInfo, type Options, type Store } from 'express-rate-limit';
import type { Orm } from '../db/orm.ts';
import { ApiError } from '../domain/errors.ts';

const WINDOW_MS = 60_000;

/**
 * Per-tenant request rate (DECISIONS §3): at most `perMinute` requests per fixed one-minute window, counted in
 * PostgreSQL so the limit holds however many API instances serve the tenant (issue 10). Runs after authentication,
 * keyed by tenant; the admin is not limited. If the counter cannot be written (database down) the request passes:
 * the limit must never be what takes the API down, and the request will meet the same database anyway.
 */
export function tenantRateLimit(perMinute: number, orm: Orm): RequestHandler {
  return rateLimit({
    windowMs: WINDOW_MS,
    limit: perMinute,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    store: new PostgresRateLimitStore(orm),
    passOnStoreError: true,
    keyGenerator: (req) => {
      const p = req.principal;
      return p && p.kind !== 'admin' ? `tenant:${p.tenantId}` : 'admin';
    },
    skip: (req) => req.principal?.kind === 'admin',
    handler: (req, _res, next, options) => {
      // Until the shared window ends (not a whole window from now).
      const reset = (req as { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const retryAfter = reset ? Math.max(1, Math.ceil((reset.getTime() - Date.now()) / 1000)) : Math.ceil(options.windowMs / 1000);
      next(new ApiError('RATE_LIMITED', `More than ${options.limit} requests per minute`, { headers: { 'Retry-After': String(retryAfter) } }));
    },
  });
}

/**
 * express-rate-limit's Store on the `rate_limit_windows` table: a fixed window per key, its start taken from the
 * database's clock (every instance agrees on the window whatever its own clock says), counted by one atomic upsert.
 */
export class PostgresRateLimitStore implements Store {
  private windowSeconds = WINDOW_MS / 1000;
  private readonly orm: Orm;

  constructor(orm: Orm) {
    this.orm = orm;
  }

  init(options: Options): void {
    this.windowSeconds = options.windowMs / 1000;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const rows = await this.execute(
      `insert into rate_limit_windows (key, window_start, hits)
       values (?, to_timestamp(floor(extract(epoch from now()) / ?) * ?), 1)
       on conflict (key, window_start) do update set hits = rate_limit_windows.hits + 1
       returning hits, window_start`,
      [key, this.windowSeconds, this.windowSeconds],
    );
    const { hits, window_start: start } = rows[0] as { hits: number; window_start: Date };
    // The first hit of a window is the moment the key's earlier windows became dead weight: drop them then. No timer,
    // so nothing runs for a store nobody uses any more (a timer per app outlived test files and stopped apps).
    if (hits === 1) await this.execute('delete from rate_limit_windows where key = ? and window_start < ?', [key, start]);
    return { totalHits: hits, resetTime: new Date(new Date(start).getTime() + this.windowSeconds * 1000) };
  }

  async decrement(key: string): Promise<void> {
    await this.execute(
      `update rate_limit_windows set hits = greatest(hits - 1, 0)
       where key = ? and window_start = to_timestamp(floor(extract(epoch from now()) / ?) * ?)`,
      [key, this.windowSeconds, this.windowSeconds],
    );
  }

  async resetKey(key: string): Promise<void> {
    await this.execute('delete from rate_limit_windows where key = ?', [key]);
  }

  private execute(sql: string, params: unknown[]) {
    // Plain statements on the shared connection pool: no EntityManager fork (no identity map) per request.
    return this.orm.em.getConnection().execute(sql, params);
  }
}
