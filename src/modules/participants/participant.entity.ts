import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { ParticipantRole } from '../../domain/principal.ts';
import { RoomSchema } from '../rooms/room.entity.ts';
import { TenantSchema } from '../tenants/tenant.entity.ts';

export const ParticipantSchema = defineEntity({
  name: 'Participant',
  tableName: 'participants',
  indexes: [
    {
      name: 'participants_room_current_index',
      expression: 'create index "participants_room_current_index" on "participants" ("room_id", "joined_at") where "removed_at" is null',
    },
    { name: 'participants_tenant_index', expression: 'create index "participants_tenant_index" on "participants" ("tenant_id")' },
  ],
  properties: {
    id: p.uuid().primary(),
    /** Denormalised from the room so every query can filter by tenant directly (isolation on every query). */
    tenant: () => p.manyToOne(TenantSchema).deleteRule('cascade'),
    room: () => p.manyToOne(RoomSchema).deleteRule('cascade'),
    displayName: p.string().length(100),
    externalUserId: p.string().length(255).nullable(),
    role: p.string().length(16).$type<ParticipantRole>(),
    joinedAt: p.datetime().onCreate(() => new Date()),
    /** Set when removed (kicked or replaced): the row stays for history, its tokens stop working. */
    removedAt: p.datetime().nullable(),
  },
});

export type Participant = InferEntity<typeof ParticipantSchema>;
