import type { Request, RequestHandler } from 'express';
import { rateLimit, type ClientRateLimitInfo, type Options, type Store } from 'express-rate-limit';
import type { Orm } from '../db/orm.ts';
import { rateLimited } from '../domain/errors.ts';

const WINDOW_MS = 60_000;

/**
 * Per-tenant request rate (docs/decisions.md §3): at most `perMinute` requests per fixed one-minute window, counted in
 * PostgreSQL so the limit holds however many API instances serve the tenant. Runs after authentication and counts
 * only a tenant's callers (its keys and tokens, its participants), under the tenant's key. The admin and the media
 * provider's notifications are not counted at all (docs/decisions.md §16): a notification carries no principal, and
 * counting them under one shared key refused every tenant's notifications once all tenants together passed the
 * limit. (A notification's bad signature counts against its address instead, src/http/address-limit.ts.) If the
 * counter cannot be written (database down) the request passes: the limit must never be what takes the API down, and
 * the request will meet the same database anyway.
 */
export function tenantRateLimit(perMinute: number, orm: Orm): RequestHandler {
  return rateLimit({
    windowMs: WINDOW_MS,
    limit: perMinute,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    store: new PostgresRateLimitStore(orm),
    passOnStoreError: true,
    skip: (req) => tenantOf(req.principal) === undefined,
    keyGenerator: (req) => `tenant:${tenantOf(req.principal)}`,
    handler: (req, _res, next, options) => {
      // Until the shared window ends (not a whole window from now).
      const reset = (req as { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      next(rateLimited(`More than ${options.limit} requests per minute`, reset?.getTime() ?? Date.now() + options.windowMs));
    },
  });
}

/** The tenant a caller acts for; undefined for the admin and for a request without a principal (a notification). */
function tenantOf(principal: Request['principal']): string | undefined {
  return principal && principal.kind !== 'admin' ? principal.tenantId : undefined;
}

/** What one instance holds of a key's current window: hits claimed in the database and not yet served here. */
interface Claimed {
  /** Local clock: when the database's window ends. */
  endsAt: number;
  /** The window's total in the database just before our last claim. */
  base: number;
  /** Of our last claim, how many fall within the limit. */
  granted: number;
  /** How many of those are still to serve. */
  left: number;
}

/** Claims grow with the room left under the limit (1/16 of it) up to this; at 16 or fewer left, one hit at a time. */
const MAX_CLAIM = 100;
const CLAIM_SHARE = 16;
/** Keys (tenants) remembered; the oldest is forgotten first, which only costs a claim. */
const MAX_KEYS = 10_000;

/**
 * express-rate-limit's Store on the `rate_limit_windows` table: a fixed window per key, its start taken from the
 * database's clock (every instance agrees on the window whatever its own clock says).
 *
 * Hits are claimed in the database in blocks and served from memory: one upsert per block, not per request. (One
 * upsert per request made every request of a tenant wait its turn on the same row; that row was the API's busiest
 * lock.) A block is a sixteenth of what is left under the limit, at most MAX_CLAIM and at least one, and the first claim
 * of a window is a single hit; so near the limit every hit is claimed alone and the limit holds exactly, on one
 * instance or many. The price: hits another instance claimed and did not serve before the window ended count as used,
 * so with several instances a tenant may be refused a little before the limit (at most a sixteenth of what was left
 * when each instance last claimed), never after it.
 */
export class PostgresRateLimitStore implements Store {
  private windowSeconds = WINDOW_MS / 1000;
  private limit = 1;
  private readonly orm: Orm;
  private readonly claimed = new Map<string, Claimed>();
  private readonly claiming = new Map<string, Promise<void>>();
  /** The start of the window (database clock) whose predecessors this store last deleted. */
  private sweptBefore = 0;

  constructor(orm: Orm) {
    this.orm = orm;
  }

  init(options: Options): void {
    this.windowSeconds = options.windowMs / 1000;
    if (typeof options.limit === 'number') this.limit = options.limit;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    for (;;) {
      const c = this.current(key);
      if (c && c.left > 0) {
        c.left--;
        return { totalHits: c.base + c.granted - c.left, resetTime: new Date(c.endsAt) };
      }
      // The window is used up: refused here, with no database write.
      if (c && c.base + c.granted >= this.limit) return { totalHits: this.limit + 1, resetTime: new Date(c.endsAt) };
      // One claim per key at a time; the others wait for it and look again.
      let claim = this.claiming.get(key);
      if (!claim) {
        claim = this.claim(key, c).finally(() => this.claiming.delete(key));
        this.claiming.set(key, claim);
      }
      await claim;
    }
  }

  /** When this instance knows the key's window to be used up: the window's end (local clock); else undefined. */
  exhaustedUntil(key: string): number | undefined {
    const c = this.current(key);
    return c && c.left === 0 && c.base + c.granted >= this.limit ? c.endsAt : undefined;
  }

  private current(key: string): Claimed | undefined {
    const c = this.claimed.get(key);
    return c && c.endsAt > Date.now() ? c : undefined;
  }

  private async claim(key: string, last: Claimed | undefined): Promise<void> {
    const room = last ? this.limit - (last.base + last.granted) : 0;
    const size = Math.max(1, Math.min(MAX_CLAIM, Math.floor(room / CLAIM_SHARE)));
    const rows = await this.execute(
      `insert into rate_limit_windows (key, window_start, hits)
       values (?, to_timestamp(floor(extract(epoch from now()) / ?) * ?), ?)
       on conflict (key, window_start) do update set hits = rate_limit_windows.hits + excluded.hits
       returning hits, window_start, extract(epoch from window_start - now()) * 1000 as starts_in_ms`,
      [key, this.windowSeconds, this.windowSeconds, size],
    );
    const { hits, window_start: start, starts_in_ms: startsIn } = rows[0] as { hits: number; window_start: Date | string; starts_in_ms: string | number };
    const base = hits - size;
    const granted = Math.max(0, Math.min(size, this.limit - base));
    this.claimed.delete(key); // re-inserted last: the Map's first key is the one used longest ago
    this.claimed.set(key, { endsAt: Date.now() + Number(startsIn) + this.windowSeconds * 1000, base, granted, left: granted });
    if (this.claimed.size > MAX_KEYS) this.claimed.delete(this.claimed.keys().next().value!);
    await this.sweepEndedWindows(new Date(start));
  }

  /**
   * Windows that ended are deleted (docs/decisions.md §16), every key's, so the table holds the current windows only and
   * an address seen once does not stay for ever. Piggybacked on the first claim of each window on this store: one
   * indexed range delete per window and instance, not a delete inside every upsert (the hot path stays one statement)
   * and no timer (nothing runs for a store nobody uses any more; a timer per app outlived test files and stopped apps).
   * With several instances the first to claim in a new window finds the rows; the others' deletes find none. (Every
   * store on this table counts in one-minute windows, so "ended" means the same for all of them.)
   */
  private async sweepEndedWindows(currentStart: Date): Promise<void> {
    if (currentStart.getTime() <= this.sweptBefore) return;
    this.sweptBefore = currentStart.getTime(); // before the await: one sweep per window even when claims race
    try {
      await this.execute('delete from rate_limit_windows where window_start < ?', [currentStart]);
    } catch {
      // Housekeeping only: the claim itself succeeded, so the request is not failed for it; the next claim tries again.
      this.sweptBefore = 0;
    }
  }

  async decrement(key: string): Promise<void> {
    // Given back to this instance's claim (express-rate-limit calls this only for requests it was told not to count).
    const c = this.current(key);
    if (c && c.left < c.granted) c.left++;
  }

  async resetKey(key: string): Promise<void> {
    this.claimed.delete(key);
    await this.execute('delete from rate_limit_windows where key = ?', [key]);
  }

  private execute(sql: string, params: unknown[]) {
    // Plain statements on the shared connection pool: no EntityManager fork (no identity map) per request.
    return this.orm.em.getConnection().execute(sql, params);
  }
}
