/**
 * docs/decisions.md §11, §14: an `Origin` is checked against the tenant's `allowed_origins` when it has any, otherwise against
 * the operator's patterns (`WS_ORIGIN_PATTERNS`). No `Origin` at all is not a browser, so it passes. Entries are
 * exact origins, or `scheme://host:*` for any port of that host (the only wildcard allowed). The WebSocket upgrade
 * and the HTTP CORS middleware (cors.ts) both decide with these functions, so they live on the HTTP side, below both.
 */
export function originAllowed(origin: string | undefined, allowedOrigins: readonly string[], operatorPatterns: readonly string[]): boolean {
  if (origin === undefined) return true;
  return originMatchesAny(origin, allowedOrigins.length > 0 ? allowedOrigins : operatorPatterns);
}

/** Whether the origin matches one of the entries (exact, or `scheme://host:*`). */
export function originMatchesAny(origin: string, entries: readonly string[]): boolean {
  const candidate = origin.toLowerCase();
  return entries.some((entry) => matches(candidate, entry.toLowerCase().replace(/\/+$/, '')));
}

function matches(origin: string, entry: string): boolean {
  if (!entry.endsWith(':*')) return origin === entry;
  const base = entry.slice(0, -2);
  if (origin === base) return true;
  return origin.startsWith(`${base}:`) && /^\d{1,5}$/.test(origin.slice(base.length + 1));
}
