import { defineEntity, p } from '@mikro-orm/core';

// Per-tenant request counters shared by every API instance. src/http/rate-limit.ts reads and writes them with plain
// SQL (one atomic upsert per request); this definition exists so migrations and scripts/schema-diff.ts know the table.
export const RateLimitWindowSchema = defineEntity({
  name: 'RateLimitWindow',
  tableName: 'rate_limit_windows',
  indexes: [{ name: 'rate_limit_windows_window_start_index', properties: ['windowStart'] }],
  properties: {
    key: p.string().length(100).primary(),
    windowStart: p.datetime().primary(),
    hits: p.integer(),
  },
});
