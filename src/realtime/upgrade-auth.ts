import type { EntityManager } from '@mikro-orm/postgresql';
import type { IncomingMessage } from 'node:http';
import type { Orm } from '../db/orm.ts';
import { createCredentialResolver } from '../credentials/credential-resolver.ts';
import { ApiError } from '../domain/errors.ts';
import type { ParticipantRole } from '../domain/principal.ts';
import type { TenantService } from '../modules/tenants/tenant.service.ts';
import type { TokenService } from '../security/tokens.ts';
import { originAllowed } from '../http/origin.ts';

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
 * Everything checked before the upgrade (docs/decisions.md §11): token (401), origin (403), room active and participant not
 * removed (404). The credential rules are the resolver's (src/credentials/credential-resolver.ts), shared with the
 * API; the origin is this transport's own. Throws the ApiError to answer with.
 */
export async function authorizeUpgrade(deps: UpgradeAuthDeps, req: IncomingMessage, url: URL): Promise<SocketIdentity> {
  const token = tokenFrom(req, url);
  if (!token) throw new ApiError('UNAUTHORIZED', 'A participant access token is required (subprotocol token.<jwt>)');
  // One EntityManager per upgrade, as an HTTP request gets its own, forked only once a token verified; the socket has
  // no admin-key operations.
  let em: EntityManager | undefined;
  const credentials = createCredentialResolver({ adminApiKey: undefined, tokens: deps.tokens, tenants: deps.tenants, em: () => (em ??= deps.orm.em.fork()) });
  const { claims, tenant } = await credentials.socketToken(token);
  const origin = req.headers.origin;
  if (!originAllowed(origin, deps.tenants.effectiveConfig(tenant).allowed_origins, deps.wsOriginPatterns)) {
    throw new ApiError('FORBIDDEN', `Origin ${JSON.stringify(origin)} is not allowed`);
  }
  const participant = await credentials.socketParticipant(claims);
  return { tenantId: tenant.id, roomId: claims.roomId, participantId: participant.id, role: participant.role, expiresAt: claims.expiresAt };
}
