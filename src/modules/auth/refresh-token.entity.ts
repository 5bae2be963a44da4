import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { TenantSchema } from '../tenants/tenant.entity.ts';

// One row per refresh token issued. Refresh rotates: a used token is retired, and presenting a retired one revokes
// its whole family (every token descended from the same login), per OAuth 2.0 refresh-token reuse detection.
export const RefreshTokenSchema = defineEntity({
  name: 'RefreshToken',
  tableName: 'refresh_tokens',
  properties: {
    jti: p.uuid().primary(),
    familyId: p.uuid().index(),
    tenant: () => p.manyToOne(TenantSchema).deleteRule('cascade'),
    /** Participant tokens only; null for a tenant's own tokens. */
    participantId: p.uuid().nullable().index(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type RefreshToken = InferEntity<typeof RefreshTokenSchema>;
