import { defineEntity, p } from '@mikro-orm/core';

// Request counters shared by every API instance: per tenant (src/http/rate-limit.ts) and per client address
// (src/http/address-limit.ts), one row per key and one-minute window. rate-limit.ts reads and writes them with plain SQL:
// an atomic upsert per claimed block of hits (not per request), and the first claim of each window on an instance
// deletes every window that ended, so only current windows stay. This definition exists so migrations and
// scripts/schema-diff.ts know the table.
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
