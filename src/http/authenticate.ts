import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestHandler } from 'express';
import { safeEqual } from '../security/api-keys.ts';
import { InvalidTokenError, TokenExpiredError, type TokenClaims, type TokenService } from '../security/tokens.ts';
import { issuedFromCurrentKey } from '../modules/auth/auth.service.ts';
import { currentParticipant } from '../modules/participants/participant-status.ts';
import { TenantSchema } from '../modules/tenants/tenant.entity.ts';
import type { TenantService } from '../modules/tenants/tenant.service.ts';
import { ApiError, forbidden } from '../domain/errors.ts';
import type { ParticipantRole, Principal } from '../domain/principal.ts';

/** What spec/openapi.yaml says an operation accepts: its security schemes and, for participants, the roles. */
export interface OperationAccess {
  schemes: Set<string>;
  participantRoles: Set<ParticipantRole>;
}

export interface AuthenticatorDeps {
  adminApiKey: string | undefined;
  tokens: TokenService;
  tenants: TenantService;
  em: () => EntityManager;
}

const unauthorized = (message: string) => new ApiError('UNAUTHORIZED', message);

/**
 * The one place that turns a credential into a Principal (DECISIONS §4), for the schemes the operation declares:
 * `AdminKeyAuth` (X-Admin-Key), `ApiKeyAuth` (X-API-Key), `BearerAuth` (tenant access token or participant auth token).
 */
export function createAuthenticator(deps: AuthenticatorDeps) {
  async function resolve(req: Parameters<RequestHandler>[0], access: OperationAccess): Promise<Principal> {
    const adminKey = req.get('x-admin-key');
    const apiKey = req.get('x-api-key');
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];

    if (adminKey !== undefined && access.schemes.has('AdminKeyAuth')) {
      // Generated clients (typescript-fetch) send their one key in every API-key header an operation declares: an
      // X-Admin-Key equal to the X-API-Key beside it is that echo unless it is the admin key (DECISIONS §12).
      const echoOfApiKey = apiKey !== undefined && access.schemes.has('ApiKeyAuth') && adminKey === apiKey;
      if (deps.adminApiKey && safeEqual(adminKey, deps.adminApiKey)) return { kind: 'admin' };
      if (!echoOfApiKey) {
        if (!deps.adminApiKey) throw forbidden('Admin operations are disabled: ADMIN_API_KEY is not configured');
        throw unauthorized('Invalid admin key');
      }
    }
    if (apiKey !== undefined && access.schemes.has('ApiKeyAuth')) {
      const tenant = await deps.tenants.findByApiKey(deps.em(), apiKey);
      if (!tenant) throw unauthorized('Invalid API key');
      return { kind: 'tenant', tenantId: tenant.id, via: 'api_key' };
    }
    if (bearer !== undefined && access.schemes.has('BearerAuth')) return resolveBearer(bearer, access);

    if (access.schemes.has('AdminKeyAuth') && access.schemes.size === 1) {
      if (!deps.adminApiKey) throw forbidden('Admin operations are disabled: ADMIN_API_KEY is not configured');
      throw unauthorized('This operation requires the X-Admin-Key header');
    }
    throw unauthorized('Missing credentials: send X-API-Key or Authorization: Bearer <token>');
  }

  async function resolveBearer(token: string, access: OperationAccess): Promise<Principal> {
    let claims: TokenClaims;
    try {
      claims = await deps.tokens.verify(token, ['access', 'auth']);
    } catch (err) {
      if (err instanceof TokenExpiredError) throw new ApiError('TOKEN_EXPIRED', 'Access token has expired');
      if (err instanceof InvalidTokenError) throw unauthorized('Invalid token');
      throw err;
    }
    const em = deps.em();
    if (claims.typ === 'access' && !claims.participant_id) {
      const tenant = await em.findOne(TenantSchema, { id: claims.tenant_id });
      if (!tenant || !issuedFromCurrentKey(tenant, claims)) throw unauthorized('Invalid token');
      return { kind: 'tenant', tenantId: tenant.id, via: 'access_token' };
    }
    if (claims.typ !== 'auth' || !claims.participant_id || !claims.room_id || !claims.role) {
      // Participant access tokens are for the WebSocket and SDKs only (DECISIONS §4).
      throw unauthorized('This token cannot call the API; use the participant auth_token');
    }
    // Removal revokes at once: a removed participant's unexpired token is refused here.
    if (!(await currentParticipant(em, claims))) throw unauthorized('Invalid token');
    if (!access.participantRoles.has(claims.role)) throw forbidden(`A ${claims.role} cannot call this operation`);
    return { kind: 'participant', tenantId: claims.tenant_id, roomId: claims.room_id, participantId: claims.participant_id, role: claims.role };
  }

  return (access: OperationAccess): RequestHandler =>
    async (req, _res, next) => {
      // The provider's webhook has no principal: its signature was checked on the raw body (upstream-signature.ts).
      if (access.schemes.size === 1 && access.schemes.has('UpstreamSignature')) return next();
      req.principal = await resolve(req, access);
      next();
    };
}
