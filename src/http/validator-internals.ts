import { createRequire } from 'node:module';

/**
 * A module as express-openapi-validator itself loads it (its own copy of a dependency, or one of its files): the one
 * way the two wrappers of its internals reach them (route-cache.ts, validator-schema-sharing.ts), so both wrap the
 * instance the validator calls.
 */
export function requireAsValidator<T>(specifier: string): T {
  return createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'))(specifier) as T;
}
