// Validators compiled by reference into one copy of the spec (src/http/validator-schema-sharing.ts) give the verdicts the
// library's own compilation gives: the same requests and responses pass, the same are refused — request bodies, query
// parameters, a response schema reached directly and one reached through components.responses.
import express from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { fileURLToPath } from 'node:url';
import supertest from 'supertest';
import { loadOpenApi, OPENAPI_PATH } from '../../../src/http/spec.ts';
import { shareValidatorSchemaCompilation, validatorsCompiledByReference } from '../../../src/http/validator-schema-sharing.ts';

const spec = loadOpenApi();
const json = (response: any) => response.content['application/json'];
const tenantExample = json(spec.paths['/api/v1/tenants/{id}']!.get.responses['200']).example;
// Get Tenant's 401 is `$ref: '#/components/responses/Unauthorized'`: a schema reached through components.responses.
const unauthorizedExample = json((spec.components as any).responses.Unauthorized).examples.invalidCredential.value;
const createRoom = spec.paths['/api/v1/rooms']!.post;
const roomRequestExample = json(createRoom.requestBody).example;
const roomExample = json(createRoom.responses['201']).example;
const roomListExample = json(spec.paths['/api/v1/rooms']!.get.responses['200']).example;
const { config: _config, ...tenantWithoutConfig } = tenantExample.data;

/** What Get Tenant's handler answers, by the `x-case` request header. */
const RESPONSES: Record<string, [status: number, body: unknown]> = {
  'valid tenant': [200, tenantExample],
  'tenant without a required field': [200, { data: tenantWithoutConfig }],
  'tenant with a field of the wrong type': [200, { data: { ...tenantExample.data, max_concurrent_rooms: 'many' } }],
  'tenant with an unknown field': [200, { data: { ...tenantExample.data, extra: true } }],
  'valid unauthorized error': [401, unauthorizedExample],
  'unauthorized error without its code': [401, { error: { message: 'no', request_id: unauthorizedExample.error.request_id } }],
};

/** Create Room request bodies, and List Rooms query strings. */
const BODIES: Record<string, unknown> = {
  'valid room': roomRequestExample,
  'room without a name': { config: roomRequestExample.config },
  'room with a config of the wrong type': { ...roomRequestExample, config: 'big' },
  'room with an unknown field': { ...roomRequestExample, colour: 'red' },
};
const QUERIES = ['', 'limit=10&offset=0', 'limit=abc', 'limit=0', 'color=red'];

function appValidating() {
  const app = express();
  app.use(express.json());
  app.use(OpenApiValidator.middleware({ apiSpec: fileURLToPath(OPENAPI_PATH), validateRequests: { allErrors: true }, validateResponses: true, validateSecurity: false }));
  app.get('/api/v1/tenants/:id', (req, res) => {
    const [status, body] = RESPONSES[req.get('x-case')!]!;
    res.status(status).json(body);
  });
  app.post('/api/v1/rooms', (_req, res) => {
    res.status(201).json(roomExample);
  });
  app.get('/api/v1/rooms', (_req, res) => {
    res.status(200).json(roomListExample);
  });
  app.use((err: { status?: number; errors?: Array<{ path: string }> }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(err.status ?? 500).json({ paths: (err.errors ?? []).map((e) => e.path).sort() });
  });
  return supertest(app);
}

async function verdicts(request: ReturnType<typeof appValidating>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(RESPONSES)) {
    out[name] = (await request.get(`/api/v1/tenants/${tenantExample.data.id}`).set('x-case', name)).status;
  }
  for (const [name, body] of Object.entries(BODIES)) {
    const res = await request.post('/api/v1/rooms').send(body as object);
    out[name] = [res.status, res.body.paths ?? null];
  }
  for (const query of QUERIES) {
    const res = await request.get(`/api/v1/rooms?${query}`);
    out[`GET /rooms?${query}`] = [res.status, res.body.paths ?? null];
  }
  return out;
}

test('the shared compilation accepts and refuses exactly what the library alone does', async () => {
  // Another test file in this process may have made an app (which turns the sharing on): off, then on again.
  shareValidatorSchemaCompilation(false);
  const before = validatorsCompiledByReference();
  const alone = await verdicts(appValidating());
  expect(alone).toMatchObject({
    'valid tenant': 200,
    'tenant without a required field': 500,
    'tenant with a field of the wrong type': 500,
    'tenant with an unknown field': 500,
    'valid unauthorized error': 401,
    'unauthorized error without its code': 500,
    'valid room': [201, null],
    'room without a name': [400, ['/body/name']],
    'room with a config of the wrong type': [400, ['/body/config']],
    'room with an unknown field': [400, ['/body/colour']],
    'GET /rooms?': [200, null],
    'GET /rooms?limit=10&offset=0': [200, null],
    'GET /rooms?limit=abc': [400, ['/query/limit']],
  });
  expect(validatorsCompiledByReference()).toBe(before);

  shareValidatorSchemaCompilation();
  const shared = await verdicts(appValidating());
  expect(shared).toEqual(alone);
  // The wrapper still meets the library's roots (it would fall back silently if the library changed its internals).
  expect(validatorsCompiledByReference()).toBeGreaterThan(before);
});
