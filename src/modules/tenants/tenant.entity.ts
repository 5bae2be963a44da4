import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { StoredTenantConfig } from './tenant-config.ts';

export const TenantSchema = defineEntity({
  name: 'Tenant',
  tableName: 'tenants',
  properties: {
    id: p.uuid().primary(),
    name: p.string().length(200),
    /** SHA-256 of the current API key; the key itself is never stored. */
    apiKeyHash: p.string().length(64).unique(),
    /** Changes on every rotation; tenant tokens carry it, so rotation retires them too. */
    apiKeyId: p.uuid(),
    maxConcurrentRooms: p.integer(),
    maxParticipantsPerRoom: p.integer(),
    maxRecordingDurationMinutes: p.integer(),
    /** Only what the tenant set (secrets sealed); defaults are applied on read. */
    config: p.json<StoredTenantConfig>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export type Tenant = InferEntity<typeof TenantSchema>;
