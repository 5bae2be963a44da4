// One credential resolver for both transports (docs/decisions.md §4, §11): the same bad credential gets the same answer
// from the API's authenticate middleware and from the WebSocket upgrade. These paths end at the token check, before any
// database access, so the EntityManager and the tenant service are stubs that fail the test if they are reached.
import type { IncomingMessage } from 'node:http';
import express from 'express';
import supertest from 'supertest';
import { createCredentialResolver } from '../../../src/credentials/credential-resolver.ts';
import type { Orm } from '../../../src/db/orm.ts';
import { ApiError } from '../../../src/domain/errors.ts';
import { createAuthenticator, type OperationAccess } from '../../../src/http/authenticate.ts';
import { errorMiddleware } from '../../../src/http/error-responses.ts';
import { createLogger } from '../../../src/logger.ts';
import type { TenantService } from '../../../src/modules/tenants/tenant.service.ts';
import { authorizeUpgrade } from '../../../src/realtime/upgrade-auth.ts';
import { generateSigningKey, TokenService, type SigningKey } from '../../../src/security/tokens.ts';

const issuer = 'http://127.0.0.1:3000';
const audience = 'convene';
const ids = { tenant_id: '01931c50-0000-7a1b-8c2d-3e4f5a6b7c8d', room_id: '01931c60-8d2e-7f10-a1b2-c3d4e5f60718', participant_id: '01931c70-0000-7a1b-8c2d-3e4f5a6b7c8d' };
const participantAccess = { sub: ids.participant_id, typ: 'access' as const, ...ids, role: 'host' as const };

const unreachable = () => {
  throw new Error('a bad credential must be refused before the database is asked');
};
const tenants = { findByApiKey: unreachable, effectiveConfig: unreachable } as unknown as TenantService;
const orm = { em: { fork: unreachable } } as unknown as Orm;

let key: SigningKey;
let tokens: TokenService;
beforeAll(async () => {
  key = await generateSigningKey();
  tokens = new TokenService({ keys: [key], issuer, audience });
});

/** What the API answers: the real authenticate middleware and error translator, on an operation open to bearers. */
async function viaApi(token: string): Promise<{ code: string; message: string; status: number }> {
  const access: OperationAccess = { schemes: new Set(['ApiKeyAuth', 'BearerAuth']), participantRoles: new Set(['host']) };
  const app = express();
  app.get('/op', createAuthenticator(createCredentialResolver({ adminApiKey: undefined, tokens, tenants, em: unreachable }))(access), (_req, res) => {
    res.status(204).end();
  });
  app.use(errorMiddleware(createLogger('silent')));
  const res = await supertest(app).get('/op').set('Authorization', `Bearer ${token}`);
  return { status: res.status, code: res.body.error?.code, message: res.body.error?.message };
}

/** What the WebSocket upgrade answers for the same token, offered as the `token.<jwt>` subprotocol. */
async function viaSocket(token: string): Promise<{ code: string; message: string; status: number }> {
  const req = { headers: { 'sec-websocket-protocol': `convene, token.${token}` } } as unknown as IncomingMessage;
  try {
    await authorizeUpgrade({ orm, tokens, tenants, wsOriginPatterns: [] }, req, new URL('http://localhost/api/v1/ws'));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { status: err.status, code: err.code, message: err.message };
  }
  throw new Error('the upgrade was allowed');
}

const cases: Array<[string, () => Promise<string>, { status: number; code: string }]> = [
  ['not a JWT', async () => 'not-a-jwt', { status: 401, code: 'UNAUTHORIZED' }],
  [
    'signed by a key the service does not know',
    async () => new TokenService({ keys: [await generateSigningKey()], issuer, audience }).sign(participantAccess, 60),
    { status: 401, code: 'UNAUTHORIZED' },
  ],
  [
    'expired',
    async () => new TokenService({ keys: [key], issuer, audience, now: () => Date.now() - 7200_000 }).sign(participantAccess, 60),
    { status: 401, code: 'TOKEN_EXPIRED' },
  ],
  ['a refresh token', async () => tokens.sign({ ...participantAccess, typ: 'refresh', fam: ids.room_id }, 60), { status: 401, code: 'UNAUTHORIZED' }],
];

test.each(cases)('%s: the API and the WebSocket give the same answer', async (_name, mint, expected) => {
  const token = await mint();
  const api = await viaApi(token);
  expect(api).toMatchObject(expected);
  expect(await viaSocket(token)).toEqual(api);
});

test('a token of the wrong kind for a transport is refused by that transport, naming the kind it takes', async () => {
  const tenantAccess = await tokens.sign({ sub: ids.tenant_id, typ: 'access', tenant_id: ids.tenant_id, key_id: ids.room_id }, 60);
  expect(await viaSocket(tenantAccess)).toEqual({ status: 401, code: 'UNAUTHORIZED', message: 'The token is not a participant access token' });
  const participantAccessToken = await tokens.sign(participantAccess, 60);
  expect(await viaApi(participantAccessToken)).toMatchObject({ status: 401, message: 'This token cannot call the API; use the participant auth_token' });
});
