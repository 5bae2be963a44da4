import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors.ts';
import { InvalidTokenError, TokenExpiredError, type TokenClaims, type TokenClaimsInput, type TokenService } from '../../security/tokens.ts';
import { v7 as uuidv7 } from 'uuid';
import type { Participant } from '../participants/participant.entity.ts';
import type { ParticipantCredentials } from '../participants/participant.ports.ts';
import { currentParticipant } from '../participants/participant-status.ts';
import { TenantSchema, type Tenant } from '../tenants/tenant.entity.ts';
import type { ParticipantTokenSet, RefreshRow, SignedParticipantTokens, TokenSet } from '../../security/token-sets.ts';
import { RefreshTokenSchema } from './refresh-token.entity.ts';

export interface TokenLifetimes {
  tenantAccessTtl: number;
  participantTtl: number;
  refreshTtl: number;
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
export class AuthService implements ParticipantCredentials {
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
    const { tokens, refreshRow } = await this.signParticipantTokens(tenant.id, { id: participant.id, roomId, role: participant.role }, familyId);
    await em.insert(RefreshTokenSchema, refreshRowEntity(refreshRow));
    return tokens;
  }

  /**
   * A participant's set, signed but not yet stored: the caller stores `refreshRow` in the transaction that adds the
   * participant (docs/decisions.md §15: the participant and its tokens commit together). Signing needs no database, so it is
   * done before any lock is taken.
   */
  async signParticipantTokens(
    tenantId: string,
    participant: { id: string; roomId: string; role: Participant['role'] },
    familyId = uuidv7(),
  ): Promise<SignedParticipantTokens> {
    const base = { sub: participant.id, tenant_id: tenantId, room_id: participant.roomId, participant_id: participant.id, role: participant.role };
    const ttl = this.ttl.participantTtl;
    const [access, authToken, refresh] = await Promise.all([
      this.tokens.sign({ ...base, typ: 'access' }, ttl),
      this.tokens.sign({ ...base, typ: 'auth' }, ttl),
      this.tokens.issue({ ...base, typ: 'refresh', fam: familyId }, this.ttl.refreshTtl),
    ]);
    const { claims } = refresh;
    return {
      tokens: { access_token: access, auth_token: authToken, refresh_token: refresh.token, token_type: 'Bearer', expires_in: ttl },
      refreshRow: { jti: claims.jti, familyId: claims.fam!, tenantId, participantId: participant.id, expiresAt: new Date(claims.exp * 1000) },
    };
  }

  /** Stores and signs a refresh token of the given family. */
  private async issueRefresh(em: EntityManager, claims: TokenClaimsInput, tenant: Tenant): Promise<string> {
    const { token, claims: issued } = await this.tokens.issue(claims, this.ttl.refreshTtl);
    // One INSERT (no unit of work to flush: outside a transaction that would be BEGIN, INSERT, COMMIT).
    await em.insert(
      RefreshTokenSchema,
      refreshRowEntity({ jti: issued.jti, familyId: issued.fam!, tenantId: tenant.id, participantId: claims.participant_id ?? null, expiresAt: new Date(issued.exp * 1000) }),
    );
    return token;
  }

  /**
   * Retires a refresh token and returns its claims and tenant, so the caller can issue the next set in the same family
   * (in the same transaction: refresh). Reuse of a retired token is reported as `reusedFamily` (the caller revokes the
   * family outside the transaction that the refusal rolls back).
   */
  private async consumeRefresh(em: EntityManager, claims: TokenClaims): Promise<{ tenant: Tenant } | { reusedFamily: string | null }> {
    const now = new Date();
    // One statement retires the token, so two concurrent refreshes with the same token cannot both succeed.
    const retired = await em.nativeUpdate(
      RefreshTokenSchema,
      { jti: claims.jti, usedAt: null, revokedAt: null, expiresAt: { $gt: now } },
      { usedAt: now },
    );
    if (retired !== 1) {
      const row = await em.findOne(RefreshTokenSchema, { jti: claims.jti });
      return { reusedFamily: row?.usedAt ? row.familyId : null };
    }
    const tenant = await em.findOne(TenantSchema, { id: claims.tenant_id });
    if (!tenant || !issuedFromCurrentKey(tenant, claims)) throw invalidRefresh();
    return { tenant };
  }

  /**
   * Rotation: the old token retired and the new set issued in ONE transaction (docs/decisions.md §15). A failure between the
   * two (the database going away) keeps the old token usable, so the client's retry is a plain refresh, not a reuse
   * that revokes its family.
   */
  async refresh(em: EntityManager, refreshToken: string): Promise<TokenSet | ParticipantTokenSet> {
    let claims: TokenClaims;
    try {
      claims = await this.tokens.verify(refreshToken, 'refresh');
    } catch (err) {
      if (err instanceof InvalidTokenError || err instanceof TokenExpiredError) throw invalidRefresh();
      throw err;
    }
    const outcome = await em.transactional(async (tx) => {
      const consumed = await this.consumeRefresh(tx, claims);
      if (!('tenant' in consumed)) return consumed;
      const { tenant } = consumed;
      if (!claims.participant_id) return { tokens: await this.issueTenantTokens(tx, tenant, claims.fam) };
      const participant = await currentParticipant(tx, claims);
      if (!participant) throw invalidRefresh();
      return { tokens: await this.issueParticipantTokens(tx, tenant, participant, claims.fam) };
    });
    if ('tokens' in outcome) return outcome.tokens;
    // A retired token presented again: reuse detection revokes the whole family (its own statement, committed).
    if (outcome.reusedFamily) await this.revokeFamily(em, outcome.reusedFamily);
    throw invalidRefresh();
  }

  async revokeFamily(em: EntityManager, familyId: string): Promise<void> {
    await em.nativeUpdate(RefreshTokenSchema, { familyId, revokedAt: null }, { revokedAt: new Date() });
  }

  /** Removal of a participant: none of its refresh tokens works again. */
  async revokeParticipant(em: EntityManager, participantId: string): Promise<void> {
    await em.nativeUpdate(RefreshTokenSchema, { participantId, revokedAt: null }, { revokedAt: new Date() });
  }
}

function refreshRowEntity(row: RefreshRow) {
  return { jti: row.jti, familyId: row.familyId, tenant: row.tenantId, participantId: row.participantId, expiresAt: row.expiresAt, createdAt: new Date() };
}
