import type { RequestHandler } from 'express';
import { ApiError } from '../domain/errors.ts';
import { escapeRegExp } from '../reg-exp.ts';
import type { SpecOperation } from './spec.ts';

export interface SpecPath {
  pattern: RegExp;
  /** The Allow header for this path (RFC 9110 §10.2.1): its methods from the spec, HEAD where GET exists, OPTIONS. */
  allow: string;
  methods: Set<string>;
  /** The methods spec/openapi.yaml declares for the path, for CORS preflights (`Access-Control-Allow-Methods`). */
  declared: string;
}

/** The paths of the contract with the methods each one has, derived from spec/openapi.yaml (never listed by hand). */
export function specPaths(operations: SpecOperation[]): SpecPath[] {
  const byPath = new Map<string, Set<string>>();
  for (const op of operations) {
    const methods = byPath.get(op.path) ?? new Set<string>();
    methods.add(op.method.toUpperCase());
    byPath.set(op.path, methods);
  }
  return [...byPath].sort(([a], [b]) => literalSegmentsFirst(a, b)).map(([path, declared]) => {
    const methods = new Set(declared);
    if (methods.has('GET')) methods.add('HEAD');
    methods.add('OPTIONS');
    const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
    return {
      declared: order.filter((m) => declared.has(m)).join(', '),
      // Case-insensitive, as Express's router and the validator match paths: /api/v1/Rooms is /api/v1/rooms everywhere.
      pattern: specPathPattern(path, 'i'),
      allow: order.filter((m) => methods.has(m)).join(', '),
      methods,
    };
  });
}

/** Literal segments win over templates (`/recordings/sync` before `/recordings/{id}`), as in the router (a sort order). */
export const literalSegmentsFirst = (a: string, b: string) => a.split('{').length - b.split('{').length;

/** A contract path as a regular expression: a template segment `{id}` matches one non-empty path segment, as in Express and the OpenAPI validator. */
export const specPathPattern = (path: string, flags = '') => new RegExp(`^${path.split(/\{[^}]+\}/).map(escapeRegExp).join('[^/]+')}/?$`, flags);

/**
 * HTTP method semantics of RFC 9110, decided before validation so every path of the contract behaves alike:
 * OPTIONS answers 204 with `Allow`; a method the path does not have is 405 METHOD_NOT_ALLOWED with `Allow`
 * (docs/decisions.md §3); HEAD runs the GET operation and Node drops the body (it decided at the start of the response that a
 * HEAD response has none), so headers and status are exactly GET's. Unknown paths fall through to 404.
 */
export function httpMethodSemantics(operations: SpecOperation[]): RequestHandler {
  const paths = specPaths(operations);
  return (req, res, next) => {
    const path = specPathOf(paths, req.path);
    if (!path) return next();
    if (req.method === 'OPTIONS') return void res.set('Allow', path.allow).status(204).end();
    if (!path.methods.has(req.method)) {
      const message = `${req.method} is not allowed on this path; allowed: ${path.allow}`;
      return next(new ApiError('METHOD_NOT_ALLOWED', message, { headers: { Allow: path.allow } }));
    }
    if (req.method === 'HEAD') req.method = 'GET';
    next();
  };
}

/** The contract's path a request path falls under, if any. */
export const specPathOf = (paths: SpecPath[], requestPath: string): SpecPath | undefined => paths.find((p) => p.pattern.test(requestPath));

/**
 * `connectWebSocket`: a real upgrade is taken by the gateway on the server's `upgrade` event and never reaches Express,
 * so whatever arrives here is a plain HTTP request: 426 UPGRADE_REQUIRED with `Upgrade: websocket` (RFC 9110 §15.5.22,
 * docs/decisions.md §3).
 */
export const upgradeRequired: RequestHandler = (_req, _res, next) =>
  next(
    new ApiError('UPGRADE_REQUIRED', 'This endpoint speaks WebSocket only: send a WebSocket upgrade (see /api/v1/asyncapi.yaml)', {
      headers: { Upgrade: 'websocket', Connection: 'Upgrade' },
    }),
  );
