// Response validation compiled by reference into one copy of the spec (src/http/response-schema-sharing.ts) gives the
// verdicts the library's own compilation gives: the same bodies pass, the same bodies are refused (500), for a success
// schema reached directly and an error schema reached through components.responses.
import express from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { fileURLToPath } from 'node:url';
import supertest from 'supertest';
import { responseValidatorsCompiledByReference, shareResponseSchemaCompilation } from '../../../src/http/response-schema-sharing.ts';
import { loadOpenApi, OPENAPI_PATH } from '../../../src/http/spec.ts';

const spec = loadOpenApi();
const getTenant = spec.paths['/api/v1/tenants/{id}']!.get;
const tenantExample = getTenant.responses['200'].content['application/json'].example;
// Get Tenant's 401 is `$ref: '#/components/responses/Unauthorized'`: a schema reached through components.responses.
const unauthorizedExample = (spec.components as any).responses.Unauthorized.content['application/json'].examples.invalidCredential.value;
const { config: _config, ...tenantWithoutConfig } = tenantExample.data;

/** What the handler answers, by the `x-case` request header. */
const CASES: Record<string, [status: number, body: unknown]> = {
  'valid tenant': [200, tenantExample],
  'tenant without a required field': [200, { data: tenantWithoutConfig }],
  'tenant with a field of the wrong type': [200, { data: { ...tenantExample.data, max_concurrent_rooms: 'many' } }],
  'tenant with an unknown field': [200, { data: { ...tenantExample.data, extra: true } }],
  'valid unauthorized error': [401, unauthorizedExample],
  'unauthorized error without its code': [401, { error: { message: 'no', request_id: unauthorizedExample.error.request_id } }],
};

function appValidatingResponses() {
  const app = express();
  app.use(OpenApiValidator.middleware({ apiSpec: fileURLToPath(OPENAPI_PATH), validateRequests: true, validateResponses: true, validateSecurity: false }));
  app.get('/api/v1/tenants/:id', (req, res) => {
    const [status, body] = CASES[req.get('x-case')!]!;
    res.status(status).json(body);
  });
  app.use((err: { status?: number }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(err.status ?? 500).json({ refused: true });
  });
  return supertest(app);
}

async function verdicts(request: ReturnType<typeof appValidatingResponses>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const name of Object.keys(CASES)) {
    out[name] = (await request.get(`/api/v1/tenants/${tenantExample.data.id}`).set('x-case', name)).status;
  }
  return out;
}

test('the shared compilation accepts and refuses exactly what the library alone does', async () => {
  const alone = await verdicts(appValidatingResponses());
  expect(alone).toEqual({
    'valid tenant': 200,
    'tenant without a required field': 500,
    'tenant with a field of the wrong type': 500,
    'tenant with an unknown field': 500,
    'valid unauthorized error': 401,
    'unauthorized error without its code': 500,
  });
  expect(responseValidatorsCompiledByReference()).toBe(0);

  shareResponseSchemaCompilation();
  const shared = await verdicts(appValidatingResponses());
  expect(shared).toEqual(alone);
  // The wrapper still meets the library's response roots (it would fall back silently if the library changed).
  expect(responseValidatorsCompiledByReference()).toBeGreaterThan(0);
});
