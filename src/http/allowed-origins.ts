import type { Orm } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import { originAllowed, originMatchesAny } from './origin.ts';

/** How long an instance trusts its copy; another instance's config change takes effect here within this time. */
export const ALLOWED_ORIGINS_TTL_MS = 5_000;

/**
 * Every tenant's `allowed_origins`, cached per instance, for CORS (docs/decisions.md §14). One query loads all tenants that
 * list origins (few rows, small arrays); the copy is reloaded when older than ALLOWED_ORIGINS_TTL_MS and at once
 * after a config change made through this instance (`invalidate`). A short TTL rather than a NOTIFY channel: it needs
 * no listener connection, and five seconds is well within what an operator expects of "save, then reload the page".
 * A failed reload keeps the last copy (CORS answers go on as before; the request meets the database failure itself).
 */
export class AllowedOrigins {
  private byTenant = new Map<string, readonly string[]>();
  private union: string[] = [];
  private loadedAt = -Infinity;
  private loading: Promise<void> | undefined;
  private readonly orm: Orm;
  private readonly operatorPatterns: readonly string[];
  private readonly logger: Logger;
  private readonly ttlMs: number;

  constructor(deps: { orm: Orm; operatorPatterns: readonly string[]; logger: Logger; ttlMs?: number }) {
    this.orm = deps.orm;
    this.operatorPatterns = deps.operatorPatterns;
    this.logger = deps.logger;
    this.ttlMs = deps.ttlMs ?? ALLOWED_ORIGINS_TTL_MS;
  }

  /** Resolves once the copy is no older than the TTL (one reload at a time; callers share it). */
  async fresh(): Promise<void> {
    if (Date.now() - this.loadedAt < this.ttlMs) return;
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    await this.loading;
  }

  /** A tenant's config changed on this instance: the next request reloads. */
  invalidate(): void {
    this.loadedAt = -Infinity;
  }

  /** Before a tenant is known: some tenant lists the origin, or the operator patterns match it. */
  allowedBeforeTenant(origin: string): boolean {
    return originMatchesAny(origin, this.operatorPatterns) || originMatchesAny(origin, this.union);
  }

  /** For a known tenant: its own list, or the operator patterns when it has none (the WebSocket's rule too). */
  allowedForTenant(tenantId: string, origin: string): boolean {
    return originAllowed(origin, this.byTenant.get(tenantId) ?? [], this.operatorPatterns);
  }

  private async load(): Promise<void> {
    try {
      const rows: Array<{ id: string; origins: string[] }> = await this.orm.em.getConnection().execute(
        `select id, config->'allowed_origins' as origins from tenants
         where jsonb_typeof(config->'allowed_origins') = 'array' and jsonb_array_length(config->'allowed_origins') > 0`,
      );
      this.byTenant = new Map(rows.map((r) => [r.id, r.origins]));
      this.union = [...new Set(rows.flatMap((r) => r.origins))];
      this.loadedAt = Date.now();
    } catch (err) {
      this.logger.warn({ err }, 'allowed origins not reloaded; the last copy stays in use');
    }
  }
}
