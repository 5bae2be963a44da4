import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.ts';
import { RoomSchema } from '../modules/rooms/room.entity.ts';
import { TenantSchema } from '../modules/tenants/tenant.entity.ts';
import type { TenantService } from '../modules/tenants/tenant.service.ts';
import { presentParticipantIds } from '../realtime/presence.ts';
import { withSafeFailures } from './safe-failure.ts';

// Activities of the empty-room workflow (workflows/empty-room.ts).

export interface RoomActivityDeps {
  orm: Orm;
  tenants: Pick<TenantService, 'effectiveConfig'>;
  /** RoomService.end: ends the room; in the same transaction its sockets are told room.ended and closed with 4004. */
  rooms: { end(em: EntityManager, tenantId: string, roomId: string): Promise<unknown> };
  /** WS_PRESENCE_STALE_AFTER, as the API instances count presence: a crashed instance's sockets do not keep a room. */
  presenceStaleAfterSeconds: number;
}

export function createRoomActivities(deps: RoomActivityDeps) {
  return withSafeFailures({
    /** The tenant's current empty_room_timeout_minutes; null when the tenant is gone. */
    async emptyRoomTimeoutMinutes(tenantId: string): Promise<number | null> {
      const tenant = await deps.orm.em.fork().findOne(TenantSchema, { id: tenantId });
      return tenant ? deps.tenants.effectiveConfig(tenant).empty_room_timeout_minutes : null;
    },

    /** Ends the room if it is still active and still empty. */
    async endEmptyRoom(tenantId: string, roomId: string): Promise<'ended' | 'occupied' | 'gone'> {
      const em = deps.orm.em.fork();
      const room = await em.findOne(RoomSchema, { id: roomId, tenant: tenantId });
      if (!room || room.status !== 'active') return 'gone';
      if ((await presentParticipantIds(em, roomId, deps.presenceStaleAfterSeconds)).size > 0) return 'occupied';
      await deps.rooms.end(em, tenantId, roomId);
      return 'ended';
    },
  });
}

export type RoomActivities = ReturnType<typeof createRoomActivities>;
