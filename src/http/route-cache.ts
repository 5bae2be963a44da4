import { requireAsValidator } from './validator-internals.ts';

/**
 * Cached route matching for express-openapi-validator. To find a request's operation, its metadata middleware
 * (dist/middlewares/openapi.metadata.js, 5.6) calls `pathToRegexp(route)` afresh for every route of the spec, in order,
 * on every request until one matches: compiling tens of regular expressions per request was ~5 % of the API's CPU
 * under load (BENCHMARKS.md, "REST hot paths"). The library reads the function off path-to-regexp's exports at each call, so wrapping that
 * export here makes each route compile once.
 *
 * Safe because the compiled result depends only on its arguments, and neither the validator nor Express's router (the
 * other user of this module, at route definition only) changes the object it gets back; the regular expressions carry no
 * `g` or `y` flag, so `exec` keeps no state between requests. Bounded: past MAX_ENTRIES distinct routes (a spec has tens)
 * calls are passed through uncached.
 */
const MAX_ENTRIES = 1000;

type PathToRegexp = (path: unknown, options?: Record<string, unknown>) => unknown;

let installed = false;

export function cacheValidatorRouteMatching(): void {
  if (installed) return;
  installed = true;
  const module = requireAsValidator<{ pathToRegexp: PathToRegexp }>('path-to-regexp');
  const compile = module.pathToRegexp;
  const cache = new Map<string, unknown>();
  module.pathToRegexp = (path, options) => {
    // The validator passes a route string and { sensitive, strict }; anything else is not cached.
    if (typeof path !== 'string' || (options && Object.keys(options).some((k) => k !== 'sensitive' && k !== 'strict'))) return compile(path, options);
    const key = `${options?.sensitive ? 's' : '-'}${options?.strict ? 's' : '-'}${path}`;
    let compiled = cache.get(key);
    if (compiled === undefined) {
      compiled = compile(path, options);
      if (cache.size < MAX_ENTRIES) cache.set(key, compiled);
    }
    return compiled;
  };
}
