import type { EntityManager } from '@mikro-orm/postgresql';
import type { components } from '../../../generated/openapi.ts';
import { ApiError } from '../../domain/errors.ts';
import type { OperationHandlers } from '../../http/router.ts';
import type { TokenService } from '../../security/tokens.ts';
import type { TenantService } from '../tenants/tenant.service.ts';
import type { AuthService } from './auth.service.ts';

export function authRoutes(deps: { auth: AuthService; tenants: TenantService; tokens: TokenService; em: () => EntityManager }): OperationHandlers {
  const { auth, tenants, tokens, em } = deps;
  return {
    issueToken: async (req, res) => {
      const tenant = await tenants.findByApiKey(em(), req.body.api_key);
      if (!tenant) throw new ApiError('UNAUTHORIZED', 'Invalid API key');
      const body: components['schemas']['TokenSetResponse'] = { data: await auth.issueTenantTokens(em(), tenant) };
      res.json(body);
    },
    refreshToken: async (req, res) => {
      const body: components['schemas']['RefreshedTokenSetResponse'] = { data: await auth.refresh(em(), req.body.refresh_token) };
      res.json(body);
    },
    getJwks: (_req, res) => {
      res.set('Cache-Control', 'public, max-age=300').json(tokens.jwks());
    },
  };
}
