import type { Express, RequestHandler } from 'express';
import type { OperationAccess } from './authenticate.ts';
import { NEEDS_PRINCIPAL, type TypedHandler } from './handler.ts';
import type { SpecOperation } from './spec.ts';

/** The schemes that yield a principal; `UpstreamSignature` (the provider's webhook) verifies a body, not a caller. */
const PRINCIPAL_SCHEMES = ['AdminKeyAuth', 'ApiKeyAuth', 'BearerAuth'];

export type OperationHandlers = Partial<Record<string, TypedHandler>>;

/**
 * Binds handlers to the spec's operations by operationId, so the contract drives the router. Start-up stops when an
 * operation of the contract has no handler (no 501 path, docs/decisions.md §3) and when a handler serves an operation the spec
 * does not declare (no route exists in code but not in the spec), and when a handler that needs a caller serves an
 * operation that declares no credential for one.
 */
export function bindOperations(
  app: Express,
  operations: SpecOperation[],
  handlers: OperationHandlers,
  /** Middleware for operations that declare security: authentication first, then whatever needs the principal. */
  guard: (access: OperationAccess) => RequestHandler[],
): void {
  const declared = new Set(operations.map((op) => op.operationId));
  const undeclared = Object.keys(handlers).filter((id) => !declared.has(id));
  if (undeclared.length > 0) throw new Error(`Handlers for operations missing from spec/openapi.yaml: ${undeclared.join(', ')}`);
  const unhandled = operations.filter((op) => !handlers[op.operationId]);
  if (unhandled.length > 0) {
    throw new Error(`Operations of spec/openapi.yaml without a handler: ${unhandled.map((op) => op.operationId).join(', ')}`);
  }

  const unauthenticated = operations.filter(
    (op) => handlers[op.operationId]?.[NEEDS_PRINCIPAL] && !PRINCIPAL_SCHEMES.some((scheme) => op.schemes.has(scheme)),
  );
  if (unauthenticated.length > 0) {
    throw new Error(`Handlers that need a principal bound to operations without one: ${unauthenticated.map((op) => op.operationId).join(', ')}`);
  }

  for (const op of operations) {
    const handler = handlers[op.operationId]!; // every operation has one (checked above)
    const expressPath = op.path.replace(/\{([^}]+)\}/g, ':$1');
    const chain: RequestHandler[] = op.schemes.size > 0 ? [...guard(op), handler] : [handler];
    app[op.method](expressPath, ...chain);
  }
}
