import type { Request, RequestHandler, Response } from 'express';
import type { operations } from '../../generated/openapi.ts';
import type { Principal } from '../domain/principal.ts';

/**
 * Handlers typed from the contract (docs/architecture.md habit 7): `handler<'getRoom'>((input, principal) => …)` gets the
 * operation's path parameters, query and body as generated/openapi.ts declares them, and must return one of the
 * responses the spec declares for it. The types hold because express-openapi-validator runs first: it refuses what
 * the schema does not allow, coerces path and query values to the schema's types and fills the schema's defaults.
 */
export type OperationId = keyof operations;

/** Handlers of a route module, by operationId: a misspelt or unknown id does not compile. */
export type Handlers = { [K in OperationId]?: RequestHandler };

type Operation<K extends OperationId> = operations[K];
/** The generator writes "none" as an optional `never`; handlers see an empty object, so every input destructures alike. */
type Part<T> = [NonNullable<T>] extends [never] ? Record<string, never> : NonNullable<T>;
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : undefined;
/** A required request body is there; an optional one may be absent. */
type Body<O> = O extends { requestBody: infer R } ? Json<R> : Json<NonNullable<O extends { requestBody?: infer R } ? R : never>> | undefined;

export interface Input<K extends OperationId> {
  params: Part<Operation<K>['parameters']['path']>;
  query: Part<Operation<K>['parameters']['query']>;
  body: Body<Operation<K>>;
}

type Responses<K extends OperationId> = Operation<K>['responses'];
/**
 * Any response the spec declares for the operation, with its JSON body (none for e.g. 204). Errors are thrown, not
 * returned: the error middleware writes those.
 */
export type Reply<K extends OperationId> = {
  [S in keyof Responses<K> & number]: [Json<Responses<K>[S]>] extends [undefined]
    ? { status: S; headers?: Record<string, string> }
    : { status: S; body: Json<Responses<K>[S]>; headers?: Record<string, string> };
}[keyof Responses<K> & number];

/** Set on handlers that need a caller, so the router can refuse at start-up to bind one to a public operation. */
export const NEEDS_PRINCIPAL = Symbol('needsPrincipal');
export type TypedHandler = RequestHandler & { [NEEDS_PRINCIPAL]?: true };

function inputOf<K extends OperationId>(req: Request): Input<K> {
  // The validator has checked and coerced these against the operation's schema (see above): this is the one cast.
  return { params: req.params, query: req.query, body: req.body } as unknown as Input<K>;
}

function send(res: Response, reply: { status: number; body?: unknown; headers?: Record<string, string> }): void {
  res.status(reply.status);
  if (reply.headers) res.set(reply.headers);
  if (reply.body === undefined) res.end();
  else res.json(reply.body);
}

/** An operation that declares security: the handler gets the principal the authenticate middleware resolved. */
export function handler<K extends OperationId>(fn: (input: Input<K>, principal: Principal) => Promise<Reply<K>> | Reply<K>): TypedHandler {
  const bound: TypedHandler = async (req, res) => {
    // bindOperations puts authentication in front of every secured operation, and refuses at start-up to bind this
    // to one without a principal, so a missing principal here is a wiring bug (a 500), never a client's fault.
    if (!req.principal) throw new Error(`${req.method} ${req.path} reached its handler without a principal`);
    send(res, await fn(inputOf<K>(req), req.principal));
  };
  bound[NEEDS_PRINCIPAL] = true;
  return bound;
}

/** A public operation (or one verified otherwise, like the provider's signed webhook): no principal. */
export function publicHandler<K extends OperationId>(fn: (input: Input<K>) => Promise<Reply<K>> | Reply<K>): TypedHandler {
  return async (req, res) => {
    send(res, await fn(inputOf<K>(req)));
  };
}
