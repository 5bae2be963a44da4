import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../http/errors.ts';
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
      res.json({ data: await auth.issueTenantTokens(em(), tenant) });
    },
    refreshToken: async (req, res) => {
      res.json({ data: await auth.refresh(em(), req.body.refresh_token) });
    },
    getJwks: (_req, res) => {
      res.set('Cache-Control', 'public, max-age=300').json(tokens.jwks());
    },
  };
}
