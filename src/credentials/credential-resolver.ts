import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, forbidden, notFound } from '../domain/errors.ts';
import type { ParticipantRole, Principal } from '../domain/principal.ts';
import type { OperationAccess, PresentedCredentials } from '../http/authenticate.ts';
import { issuedFromCurrentKey } from '../modules/auth/auth.service.ts';
import type { Participant } from '../modules/participants/participant.entity.ts';
import { currentParticipant, isCurrentParticipant } from '../modules/participants/participant-status.ts';
import { RoomSchema } from '../modules/rooms/room.entity.ts';
import { TenantSchema, type Tenant } from '../modules/tenants/tenant.entity.ts';
import type { TenantService } from '../modules/tenants/tenant.service.ts';
import { safeEqual } from '../security/api-keys.ts';
import { InvalidTokenError, TokenExpiredError, type TokenClaims, type TokenService, type TokenType } from '../security/tokens.ts';

/**
 * Where a credential arrives. The API takes tenant access tokens and participant auth tokens; the WebSocket only
 * participant access tokens (docs/decisions.md §4).
 */
export type Transport = 'api' | 'socket';


/** A participant token that verified; whether the participant is still in its room is a separate question. */
export interface ParticipantClaims {
  tenantId: string;
  roomId: string;
  participantId: string;
  role: ParticipantRole;
  /** When the token expires, in ms since the epoch. */
  expiresAt: number;
}

export interface CredentialResolverDeps {
  adminApiKey: string | undefined;
  tokens: TokenService;
  tenants: TenantService;
  /** The request's (or the upgrade's) own EntityManager. */
  em: () => EntityManager;
}

export type CredentialResolver = ReturnType<typeof createCredentialResolver>;

const ACCEPTED_TOKENS: Record<Transport, readonly TokenType[]> = { api: ['access', 'auth'], socket: ['access'] };
/** A token of the right signature but the wrong kind for the transport: each transport says which one it wants. */
const WRONG_KIND: Record<Transport, string> = {
  api: 'This token cannot call the API; use the participant auth_token',
  socket: 'The token is not a participant access token',
};

const unauthorized = (message: string) => new ApiError('UNAUTHORIZED', message);
const invalidToken = () => unauthorized('Invalid token');
const adminDisabled = () => forbidden('Admin operations are disabled: ADMIN_API_KEY is not configured');

/**
 * The one place that turns a credential into who is calling (docs/decisions.md §4, §11), for the API and the WebSocket alike:
 * the token-error mapping, the tenant-key check and the "participant still in its room" check live here only. The
 * transports' adapters (src/http/authenticate.ts, src/realtime/upgrade-auth.ts) read the credential off the wire
 * and hand it over.
 */
export function createCredentialResolver(deps: CredentialResolverDeps) {
  /** Signature, lifetime and type: an expired token is TOKEN_EXPIRED, anything else wrong is UNAUTHORIZED. */
  async function verifyToken(token: string, transport: Transport): Promise<TokenClaims> {
    try {
      return await deps.tokens.verify(token, ACCEPTED_TOKENS[transport]);
    } catch (err) {
      if (err instanceof TokenExpiredError) throw new ApiError('TOKEN_EXPIRED', 'Access token has expired');
      if (err instanceof InvalidTokenError) throw invalidToken();
      throw err;
    }
  }

  /** The participant a token names, refused when it is not the kind of participant token the transport takes. */
  function participantClaims(claims: TokenClaims, transport: Transport): ParticipantClaims {
    const kind: TokenType = transport === 'api' ? 'auth' : 'access';
    if (claims.typ !== kind || !claims.participant_id || !claims.room_id || !claims.role) throw unauthorized(WRONG_KIND[transport]);
    return { tenantId: claims.tenant_id, roomId: claims.room_id, participantId: claims.participant_id, role: claims.role, expiresAt: claims.exp * 1000 };
  }

  /** A tenant that still exists; a token of a deleted tenant is simply invalid. */
  async function tenantOf(tenantId: string): Promise<Tenant> {
    const tenant = await deps.em().findOne(TenantSchema, { id: tenantId });
    if (!tenant) throw invalidToken();
    return tenant;
  }

  /**
   * Removal revokes at once: a removed participant's unexpired token is refused. The API answers as for any revoked
   * token (401, docs/decisions.md §4); the WebSocket says the room or the participant is gone (404, docs/decisions.md §11), and also
   * refuses an ended room, where the API still lets a participant read its room.
   */
  function requireCurrent(p: ParticipantClaims, transport: 'api'): Promise<void>;
  function requireCurrent(p: ParticipantClaims, transport: 'socket'): Promise<Participant>;
  async function requireCurrent(p: ParticipantClaims, transport: Transport): Promise<Participant | void> {
    const em = deps.em();
    const named = { tenant_id: p.tenantId, room_id: p.roomId, participant_id: p.participantId };
    if (transport === 'api') {
      if (!(await isCurrentParticipant(em, named))) throw invalidToken();
      return;
    }
    const room = await em.findOne(RoomSchema, { id: p.roomId, tenant: p.tenantId });
    if (!room || room.status !== 'active') throw notFound('Room');
    const participant = await currentParticipant(em, named);
    if (!participant) throw notFound('Participant');
    return participant;
  }

  /** A tenant by its API key (X-API-Key, and the body of issueToken). */
  async function tenantByApiKey(apiKey: string): Promise<Tenant> {
    const tenant = await deps.tenants.findByApiKey(deps.em(), apiKey);
    if (!tenant) throw unauthorized('Invalid API key');
    return tenant;
  }

  /** A bearer token on the API: a tenant access token from the current key, or a participant auth token. */
  async function apiBearer(token: string, access: OperationAccess): Promise<Principal> {
    const claims = await verifyToken(token, 'api');
    if (claims.typ === 'access' && !claims.participant_id) {
      // The key id only, read now (no cache): a rotation retires the token on the very next request (docs/decisions.md §4).
      const rows: Array<{ api_key_id: string }> = await deps.em().getConnection().execute('select api_key_id from tenants where id = ?', [claims.tenant_id]);
      if (!rows[0] || !issuedFromCurrentKey({ apiKeyId: rows[0].api_key_id }, claims)) throw invalidToken();
      return { kind: 'tenant', tenantId: claims.tenant_id, via: 'access_token' };
    }
    const p = participantClaims(claims, 'api');
    await requireCurrent(p, 'api');
    if (!access.participantRoles.has(p.role)) throw forbidden(`A ${p.role} cannot call this operation`);
    return { kind: 'participant', tenantId: p.tenantId, roomId: p.roomId, participantId: p.participantId, role: p.role };
  }

  return {
    tenantByApiKey,

    /** The principal of an API request, for the schemes the operation declares (AdminKeyAuth, ApiKeyAuth, BearerAuth). */
    async forOperation(presented: PresentedCredentials, access: OperationAccess): Promise<Principal> {
      const { adminKey, apiKey, bearer } = presented;
      if (adminKey !== undefined && access.schemes.has('AdminKeyAuth')) {
        // Generated clients (typescript-fetch) send their one key in every API-key header an operation declares: an
        // X-Admin-Key equal to the X-API-Key beside it is that echo unless it is the admin key (docs/decisions.md §12).
        const echoOfApiKey = apiKey !== undefined && access.schemes.has('ApiKeyAuth') && adminKey === apiKey;
        if (deps.adminApiKey && safeEqual(adminKey, deps.adminApiKey)) return { kind: 'admin' };
        if (!echoOfApiKey) {
          if (!deps.adminApiKey) throw adminDisabled();
          throw unauthorized('Invalid admin key');
        }
      }
      if (apiKey !== undefined && access.schemes.has('ApiKeyAuth')) {
        const tenantId = await deps.tenants.idByApiKey(deps.em(), apiKey);
        if (!tenantId) throw unauthorized('Invalid API key');
        return { kind: 'tenant', tenantId, via: 'api_key' };
      }
      if (bearer !== undefined && access.schemes.has('BearerAuth')) return apiBearer(bearer, access);

      if (access.schemes.has('AdminKeyAuth') && access.schemes.size === 1) {
        if (!deps.adminApiKey) throw adminDisabled();
        throw unauthorized('This operation requires the X-Admin-Key header');
      }
      throw unauthorized('Missing credentials: send X-API-Key or Authorization: Bearer <token>');
    },

    /**
     * A WebSocket's access token, in two steps so the upgrade can check the Origin against the tenant's settings in
     * between (a bad origin is 403 before anything about the room is told): first the token and its tenant (401)…
     */
    async socketToken(token: string): Promise<{ claims: ParticipantClaims; tenant: Tenant }> {
      const claims = participantClaims(await verifyToken(token, 'socket'), 'socket');
      return { claims, tenant: await tenantOf(claims.tenantId) };
    },
    /** …then the room still active and the participant still in it (404); its role is the one stored now. */
    socketParticipant: (claims: ParticipantClaims) => requireCurrent(claims, 'socket'),
  };
}
