import type { IncomingMessage } from 'node:http';
import type { Orm } from '../db/orm.ts';
import { ApiError, notFound } from '../domain/errors.ts';
import { ParticipantSchema } from '../modules/participants/participant.entity.ts';
import { RoomSchema } from '../modules/rooms/room.entity.ts';
import { TenantSchema } from '../modules/tenants/tenant.entity.ts';
import type { TenantService } from '../modules/tenants/tenant.service.ts';
import { InvalidTokenError, TokenExpiredError, type ParticipantRole, type TokenService } from '../security/tokens.ts';
import { originAllowed } from './origin.ts';

export const SUBPROTOCOL = 'convene';
const TOKEN_PREFIX = 'token.';

export interface SocketIdentity {
  tenantId: string;
  roomId: string;
  participantId: string;
  role: ParticipantRole;
  /** When the access token expires (ms since the epoch): the gateway closes the socket then (4005). */
  expiresAt: number;
}

export interface UpgradeAuthDeps {
  orm: Orm;
  tokens: TokenService;
  tenants: TenantService;
  wsOriginPatterns: readonly string[];
}

/** The access token: from the `token.<jwt>` subprotocol (preferred) or the deprecated `?token=`. */
export function tokenFrom(req: IncomingMessage, url: URL): string | undefined {
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const fromProtocol = offered.find((p) => p.startsWith(TOKEN_PREFIX));
  if (fromProtocol) return fromProtocol.slice(TOKEN_PREFIX.length);
  return url.searchParams.get('token') ?? undefined;
}

/**
 * Everything checked before the upgrade (DECISIONS §11): token (401), origin (403), room active and participant not
 * removed (404). Throws the ApiError to answer with.
 */
export async function authorizeUpgrade(deps: UpgradeAuthDeps, req: IncomingMessage, url: URL): Promise<SocketIdentity> {
  const token = tokenFrom(req, url);
  if (!token) throw new ApiError('UNAUTHORIZED', 'A participant access token is required (subprotocol token.<jwt>)');
  let claims;
  try {
    claims = await deps.tokens.verify(token, 'access');
  } catch (err) {
    if (err instanceof TokenExpiredError) throw new ApiError('TOKEN_EXPIRED', 'The access token has expired');
    if (err instanceof InvalidTokenError) throw new ApiError('UNAUTHORIZED', 'The access token is not valid');
    throw err;
  }
  if (!claims.room_id || !claims.participant_id || !claims.role) {
    throw new ApiError('UNAUTHORIZED', 'The token is not a participant access token');
  }

  const em = deps.orm.em.fork();
  const tenant = await em.findOne(TenantSchema, { id: claims.tenant_id });
  if (!tenant) throw new ApiError('UNAUTHORIZED', 'The access token is not valid');
  const origin = req.headers.origin;
  if (!originAllowed(origin, deps.tenants.effectiveConfig(tenant).allowed_origins, deps.wsOriginPatterns)) {
    throw new ApiError('FORBIDDEN', `Origin ${JSON.stringify(origin)} is not allowed`);
  }
  const room = await em.findOne(RoomSchema, { id: claims.room_id, tenant: tenant.id });
  if (!room || room.status !== 'active') throw notFound('Room');
  const participant = await em.findOne(ParticipantSchema, { id: claims.participant_id, room: room.id, tenant: tenant.id });
  if (!participant || participant.removedAt) throw notFound('Participant');
  return { tenantId: tenant.id, roomId: room.id, participantId: participant.id, role: participant.role, expiresAt: claims.exp * 1000 };
}
