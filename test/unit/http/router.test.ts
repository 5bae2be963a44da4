import express from 'express';
import supertest from 'supertest';
import { errorMiddleware, routeNotFound } from '../../../src/http/error-responses.ts';
import { handler, publicHandler } from '../../../src/http/handler.ts';
import { bindOperations } from '../../../src/http/router.ts';
import { listOperations, loadOpenApi, type SpecOperation } from '../../../src/http/spec.ts';
import { createLogger } from '../../../src/logger.ts';

const op = (operationId: string, method: SpecOperation['method'], path: string, schemes: string[] = []): SpecOperation => ({
  operationId,
  method,
  path,
  schemes: new Set(schemes),
  participantRoles: new Set(),
});

const pass = (_req: express.Request, _res: express.Response, next: express.NextFunction) => next();
const allow = () => [pass];

test('an operation of the contract without a handler stops start-up, naming it (no 501 path)', () => {
  const ops = [op('getThing', 'get', '/things/{id}'), op('listThings', 'get', '/things')];
  expect(() => bindOperations(express(), ops, { listThings: pass }, allow)).toThrow(/without a handler: getThing$/);
});

test('a handler for an operation the spec does not declare stops start-up', () => {
  expect(() => bindOperations(express(), [op('a', 'get', '/a')], { a: pass, ghost: pass }, allow)).toThrow(/ghost/);
});

test('secured operations run the authenticator first; public ones do not', async () => {
  const seen: string[] = [];
  const app = express();
  const authenticate = (access: { schemes: Set<string> }) => [
    (_q: express.Request, _r: express.Response, next: express.NextFunction) => {
      seen.push([...access.schemes].join('+'));
      next();
    },
  ];
  bindOperations(app, [op('pub', 'get', '/pub'), op('sec', 'get', '/sec', ['ApiKeyAuth', 'BearerAuth'])], { pub: (_q, r) => void r.end(), sec: (_q, r) => void r.end() }, authenticate);
  await supertest(app).get('/pub');
  await supertest(app).get('/sec');
  expect(seen).toEqual(['ApiKeyAuth+BearerAuth']);
});

test('a handler that needs a principal, bound to an operation that declares no caller credential, stops start-up', () => {
  const needsCaller = handler<'getRoom'>(() => ({ status: 200, body: {} as never }));
  const ops = [op('open', 'get', '/open'), op('hook', 'post', '/hook', ['UpstreamSignature']), op('secured', 'get', '/secured', ['ApiKeyAuth'])];
  expect(() => bindOperations(express(), ops, { open: needsCaller, hook: needsCaller, secured: needsCaller }, allow)).toThrow(
    /without one: open, hook$/,
  );
  expect(() => bindOperations(express(), ops, { open: publicHandler<'getHealth'>(() => ({ status: 200, body: { status: 'ok' } })), hook: pass, secured: needsCaller }, allow)).not.toThrow();
});

test('typed handlers send the reply they return: status, headers, JSON body or none', async () => {
  const app = express();
  const ops = [op('json', 'get', '/json'), op('empty', 'delete', '/empty')];
  bindOperations(
    app,
    ops,
    {
      json: publicHandler<'getJwks'>(() => ({ status: 200, body: { keys: [] }, headers: { 'Cache-Control': 'no-store' } })),
      empty: publicHandler<'deleteRoom'>(() => ({ status: 204 })),
    },
    allow,
  );
  const json = await supertest(app).get('/json');
  expect([json.status, json.headers['cache-control'], json.body]).toEqual([200, 'no-store', { keys: [] }]);
  const empty = await supertest(app).delete('/empty');
  expect([empty.status, empty.text]).toEqual([204, '']);
});
