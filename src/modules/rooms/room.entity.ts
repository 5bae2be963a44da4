import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { TenantSchema } from '../tenants/tenant.entity.ts';

export type RoomStatus = 'active' | 'ended';

export const RoomSchema = defineEntity({
  name: 'Room',
  tableName: 'rooms',
  indexes: [
    { name: 'rooms_tenant_created_index', expression: 'create index "rooms_tenant_created_index" on "rooms" ("tenant_id", "created_at" desc, "id" desc)' },
    { name: 'rooms_tenant_name_index', expression: 'create index "rooms_tenant_name_index" on "rooms" ("tenant_id", "name", "created_at" desc)' },
  ],
  uniques: [
    {
      name: 'rooms_tenant_active_name_unique',
      expression: `create unique index "rooms_tenant_active_name_unique" on "rooms" ("tenant_id", "name") where "status" = 'active'`,
    },
  ],
  properties: {
    id: p.uuid().primary(),
    tenant: () => p.manyToOne(TenantSchema).deleteRule('cascade'),
    /** Unique per tenant among active rooms (a partial unique index, see the migration). */
    name: p.string().length(100),
    status: p.string().length(16).$type<RoomStatus>(),
    maxParticipants: p.integer(),
    recordingEnabled: p.boolean(),
    chatEnabled: p.boolean(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
    endedAt: p.datetime().nullable(),
  },
});

export type Room = InferEntity<typeof RoomSchema>;
