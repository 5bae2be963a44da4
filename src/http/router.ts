import type { Express, RequestHandler } from 'express';
import { ApiError } from './errors.ts';
import type { OperationAccess } from './authenticate.ts';
import type { SpecOperation } from './spec.ts';

export type OperationHandlers = Partial<Record<string, RequestHandler>>;

/**
 * Binds handlers to the spec's operations by operationId, so the contract drives the router: an operation without a
 * handler answers 501 NOT_IMPLEMENTED (the contract stays browsable), and a handler for an operation the spec does not
 * declare stops start-up (no route exists in code but not in the spec).
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

  for (const op of operations) {
    const expressPath = op.path.replace(/\{([^}]+)\}/g, ':$1');
    const handler = handlers[op.operationId] ?? notImplemented(op.operationId);
    const chain: RequestHandler[] = op.schemes.size > 0 ? [...guard(op), handler] : [handler];
    app[op.method](expressPath, ...chain);
  }
}

const notImplemented =
  (operationId: string): RequestHandler =>
  (_req, _res, next) =>
    next(new ApiError('NOT_IMPLEMENTED', `${operationId} is declared in the contract but not implemented yet`));
