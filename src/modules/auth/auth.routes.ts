import type { EntityManager } from '@mikro-orm/postgresql';
import { publicHandler, type Handlers } from '../../http/handler.ts';
import type { TokenService } from '../../security/tokens.ts';
import type { Tenant } from '../tenants/tenant.entity.ts';
import type { AuthService } from './auth.service.ts';

/**
 * What Issue Token needs of the credential resolver (src/credentials/credential-resolver.ts, which sits above the
 * modules).
 */
export interface ApiKeyLookup {
  /** The tenant of an API key; a 401 when there is none. */
  tenantByApiKey(apiKey: string): Promise<Tenant>;
}

// Public operations: the credential is in the body (issueToken, refreshToken) or there is none (getJwks).
export function authRoutes(deps: { auth: AuthService; credentials: ApiKeyLookup; tokens: TokenService; em: () => EntityManager }): Handlers {
  const { auth, credentials, tokens, em } = deps;
  return {
    issueToken: publicHandler<'issueToken'>(async ({ body }) => {
      const tenant = await credentials.tenantByApiKey(body.api_key);
      return { status: 200, body: { data: await auth.issueTenantTokens(em(), tenant) } };
    }),
    refreshToken: publicHandler<'refreshToken'>(async ({ body }) => ({ status: 200, body: { data: await auth.refresh(em(), body.refresh_token) } })),
    getJwks: publicHandler<'getJwks'>(() => ({ status: 200, body: tokens.jwks(), headers: { 'Cache-Control': 'public, max-age=300' } })),
  };
}
