import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors.ts';
import { InvalidTokenError, TokenExpiredError, type TokenClaims, type TokenClaimsInput, type TokenService } from '../../security/tokens.ts';
import { v7 as uuidv7 } from 'uuid';
import type { Participant } from '../participants/participant.entity.ts';
import { currentParticipant } from '../participants/participant-status.ts';
import { TenantSchema, type Tenant } from '../tenants/tenant.entity.ts';
import { RefreshTokenSchema } from './refresh-token.entity.ts';

export interface TokenLifetimes {
  tenantAccessTtl: number;
  participantTtl: number;
  refreshTtl: number;
}

export interface TokenSet {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

/** A participant's set: `access_token` for the SDK and WebSocket, `auth_token` for API calls. */
export interface ParticipantTokenSet extends TokenSet {
  auth_token: string;
}

/**
 * Rotating a tenant's API key retires every tenant token issued from the old one: they carry the key's id (`key_id`).
 * Participant tokens do not descend from the key and are unaffected.
 */
export function issuedFromCurrentKey(tenant: Pick<Tenant, 'apiKeyId'>, claims: TokenClaims): boolean {
  return Boolean(claims.participant_id) || claims.key_id === tenant.apiKeyId;
}

const invalidRefresh = () => new ApiError('INVALID_REFRESH_TOKEN', 'Refresh token is invalid or expired');

/**
 * Issues token sets and rotates refresh tokens. Every refresh token is a row; using one retires it, and presenting a
 * retired one again revokes its whole family (reuse detection), as does rotating the tenant's API key.
 */
export class AuthService {
  private readonly tokens: TokenService;
  private readonly ttl: TokenLifetimes;

  constructor(tokens: TokenService, ttl: TokenLifetimes) {
    this.tokens = tokens;
    this.ttl = ttl;
  }

  /** A tenant's token set from its API key (the caller has already resolved the key to the tenant). */
  async issueTenantTokens(em: EntityManager, tenant: Tenant, familyId = uuidv7()): Promise<TokenSet> {
    const base = { sub: tenant.id, tenant_id: tenant.id, key_id: tenant.apiKeyId };
    const access = await this.tokens.sign({ ...base, typ: 'access' }, this.ttl.tenantAccessTtl);
    const refresh = await this.issueRefresh(em, { ...base, typ: 'refresh', fam: familyId }, tenant);
    return { access_token: access, refresh_token: refresh, token_type: 'Bearer', expires_in: this.ttl.tenantAccessTtl };
  }

  async issueParticipantTokens(em: EntityManager, tenant: Tenant, participant: Participant, familyId = uuidv7()): Promise<ParticipantTokenSet> {
    const roomId = typeof participant.room === 'string' ? participant.room : participant.room.id;
    const base = { sub: participant.id, tenant_id: tenant.id, room_id: roomId, participant_id: participant.id, role: participant.role };
    const ttl = this.ttl.participantTtl;
    const [access, authToken] = await Promise.all([this.tokens.sign({ ...base, typ: 'access' }, ttl), this.tokens.sign({ ...base, typ: 'auth' }, ttl)]);
    const refresh = await this.issueRefresh(em, { ...base, typ: 'refresh', fam: familyId }, tenant);
    return { access_token: access, auth_token: authToken, refresh_token: refresh, token_type: 'Bearer', expires_in: ttl };
  }

  /** Stores and signs a refresh token of the given family. */
  private async issueRefresh(em: EntityManager, claims: TokenClaimsInput, tenant: Tenant): Promise<string> {
    const { token, claims: issued } = await this.tokens.issue(claims, this.ttl.refreshTtl);
    // One INSERT (no unit of work to flush: outside a transaction that would be BEGIN, INSERT, COMMIT).
    await em.insert(RefreshTokenSchema, {
      jti: issued.jti,
      familyId: issued.fam!,
      tenant: tenant.id,
      participantId: claims.participant_id ?? null,
      expiresAt: new Date(issued.exp * 1000),
      createdAt: new Date(),
    });
    return token;
  }

  /**
   * Retires a refresh token and returns its claims and tenant, so the caller can issue the next set in the same family.
   * Reuse of a retired token revokes the family.
   */
  async consumeRefresh(em: EntityManager, refreshToken: string): Promise<{ claims: TokenClaims; tenant: Tenant }> {
    let claims: TokenClaims;
    try {
      claims = await this.tokens.verify(refreshToken, 'refresh');
    } catch (err) {
      if (err instanceof InvalidTokenError || err instanceof TokenExpiredError) throw invalidRefresh();
      throw err;
    }
    const now = new Date();
    // One statement retires the token, so two concurrent refreshes with the same token cannot both succeed.
    const retired = await em.nativeUpdate(
      RefreshTokenSchema,
      { jti: claims.jti, usedAt: null, revokedAt: null, expiresAt: { $gt: now } },
      { usedAt: now },
    );
    if (retired !== 1) {
      const row = await em.findOne(RefreshTokenSchema, { jti: claims.jti });
      if (row?.usedAt) await this.revokeFamily(em, row.familyId);
      throw invalidRefresh();
    }
    const tenant = await em.findOne(TenantSchema, { id: claims.tenant_id });
    if (!tenant || !issuedFromCurrentKey(tenant, claims)) throw invalidRefresh();
    return { claims, tenant };
  }

  async refresh(em: EntityManager, refreshToken: string): Promise<TokenSet | ParticipantTokenSet> {
    const { claims, tenant } = await this.consumeRefresh(em, refreshToken);
    if (!claims.participant_id) return this.issueTenantTokens(em, tenant, claims.fam);
    const participant = await currentParticipant(em, claims);
    if (!participant) throw invalidRefresh();
    return this.issueParticipantTokens(em, tenant, participant, claims.fam);
  }

  async revokeFamily(em: EntityManager, familyId: string): Promise<void> {
    await em.nativeUpdate(RefreshTokenSchema, { familyId, revokedAt: null }, { revokedAt: new Date() });
  }

  /** Removal of a participant: none of its refresh tokens works again. */
  async revokeParticipant(em: EntityManager, participantId: string): Promise<void> {
    await em.nativeUpdate(RefreshTokenSchema, { participantId, revokedAt: null }, { revokedAt: new Date() });
  }
}
