import express from 'express';
import supertest from 'supertest';
import { errorMiddleware } from '../../src/http/errors.ts';
import { bindOperations } from '../../src/http/router.ts';
import type { SpecOperation } from '../../src/http/spec.ts';
import { createLogger } from '../../src/logger.ts';

const op = (operationId: string, method: SpecOperation['method'], path: string, schemes: string[] = []): SpecOperation => ({
  operationId,
  method,
  path,
  schemes: new Set(schemes),
  participantRoles: new Set(),
});

const pass = (_req: express.Request, _res: express.Response, next: express.NextFunction) => next();
const allow = () => [pass];

test('an operation without a handler answers 501 NOT_IMPLEMENTED in the envelope', async () => {
  const app = express();
  app.use((req, _res, next) => ((req.id = 'r1'), next()));
  bindOperations(app, [op('getThing', 'get', '/things/{id}'), op('listThings', 'get', '/things')], { listThings: (_q, r) => void r.json([]) }, allow);
  app.use(errorMiddleware(createLogger('silent')));
  const res = await supertest(app).get('/things/42');
  expect(res.status).toBe(501);
  expect(res.body).toEqual({ error: { code: 'NOT_IMPLEMENTED', message: expect.stringContaining('getThing'), request_id: 'r1' } });
  expect((await supertest(app).get('/things')).body).toEqual([]);
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
