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
 * (and, when `roles` is given, only with one of those roles: e.g. host-only operations).
 */
export async function roomForPrincipal(
  em: EntityManager,
  principal: Principal,
  idOrName: string,
  roles?: readonly ParticipantRole[],
): Promise<Room> {
  const room = await findRoom(em, tenantOf(principal), idOrName);
  checkRoomAccess(principal, room.id, roles);
  return room;
}

/**
 * The rule itself, for a room of the principal's tenant known by id: a participant acts on its own room only (any other
 * is not found), and, when `roles` is given, only with one of them. The one place this rule lives; roomForPrincipal
 * applies it, and so does a read that fetches the room its own way (Get Room by id, room.service.ts).
 */
export function checkRoomAccess(principal: Principal, roomId: string, roles?: readonly ParticipantRole[]): void {
  if (principal.kind !== 'participant') return;
  // Not found rather than forbidden: a participant learns nothing about other rooms.
  if (principal.roomId !== roomId) throw notFound('Room');
  if (roles && !roles.includes(principal.role)) throw forbidden(`Only a ${roles.join(' or ')} may do this`);
}
