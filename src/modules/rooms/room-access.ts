import type { EntityManager } from '@mikro-orm/postgresql';
import { validate as isUuid } from 'uuid';
import { forbidden, notFound } from '../../domain/errors.ts';
import { tenantOf, type ParticipantRole, type Principal } from '../../domain/principal.ts';
import { RoomSchema, type Room } from './room.entity.ts';

/**
 * A room by UUID or name, within the tenant only (another tenant's room is simply not found). A name resolves to the
 * active room of that name, else the newest ended one (docs/decisions.md §2).
 */
export async function findRoom(em: EntityManager, tenantId: string, idOrName: string): Promise<Room> {
  const room = await findRoomOrNull(em, tenantId, idOrName);
  if (!room) throw notFound('Room');
  return room;
}

export function findRoomOrNull(em: EntityManager, tenantId: string, idOrName: string): Promise<Room | null> {
  return isUuid(idOrName)
    ? em.findOne(RoomSchema, { id: idOrName, tenant: tenantId })
    : // 'active' sorts before 'ended': the active room first, else the newest ended one.
      em.findOne(RoomSchema, { name: idOrName, tenant: tenantId }, { orderBy: [{ status: 'asc' }, { createdAt: 'desc' }] });
}

/**
 * The room a principal may act on: any room of its tenant for a tenant credential; only its own room for a participant
 * (and, when `roles` is given, only with one of those roles: e.g. host-only operations). The one place this rule lives.
 */
export async function roomForPrincipal(
  em: EntityManager,
  principal: Principal,
  idOrName: string,
  roles?: readonly ParticipantRole[],
): Promise<Room> {
  const room = await findRoom(em, tenantOf(principal), idOrName);
  if (principal.kind === 'participant') {
    // Not found rather than forbidden: a participant learns nothing about other rooms.
    if (principal.roomId !== room.id) throw notFound('Room');
    if (roles && !roles.includes(principal.role)) throw forbidden(`Only a ${roles.join(' or ')} may do this`);
  }
  return room;
}
