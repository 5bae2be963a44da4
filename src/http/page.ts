/** A list operation's page, as the spec's `Limit` and `Offset` parameters describe it. */
export interface Page {
  limit: number;
  offset: number;
}

/**
 * The page a list request asked for. The spec gives `limit` and `offset` defaults (20, 0) and the validator fills them
 * in, so both are always there; the generated type calls them optional because a client may omit them.
 */
export function pageOf(query: { limit?: number; offset?: number }): Page {
  const { limit, offset } = query;
  if (limit === undefined || offset === undefined) throw new Error('limit and offset are unset: the OpenAPI validator fills their defaults before any handler');
  return { limit, offset };
}
