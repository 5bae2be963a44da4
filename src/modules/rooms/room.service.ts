import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { v7 as uuidv7, validate as isUuid } from 'uuid';
import { lockRow } from '../../db/locks.ts';
import type { RoomSessions } from '../../events/room-sessions.ports.ts';
import { ApiError, notFound, validationError } from '../../domain/errors.ts';
import type { Handovers } from '../../handover/handover.ts';
import { starts } from '../../handover/starts.ts';
import { TenantSchema, type Tenant } from '../tenants/tenant.entity.ts';
import type { TenantService } from '../tenants/tenant.service.ts';
import { tenantOf, type Principal } from '../../domain/principal.ts';
import { checkRoomAccess, roomForPrincipal } from './room-access.ts';
import { selectCountedRooms, withParticipantCount, type CountedRoom } from './room-counts.ts';
import type { RoomRecordingStop } from './room.ports.ts';
import { RoomSchema, type Room } from './room.entity.ts';

export interface RoomConfigInput {
  max_participants?: number;
  recording_enabled?: boolean;
  chat_enabled?: boolean;
}

export const limitExceeded = (limit: string, max: number) =>
  new ApiError('LIMIT_EXCEEDED', `Limit ${limit} (${max}) reached`, { details: { limit, max } });

/** Rooms: creation within the tenant's limits, partial update, end and delete (docs/decisions.md §2, §6). */
export interface RoomServiceDeps {
  tenants: TenantService;
  /** Presence cleanup and the sockets' room.ended, in the ending transaction. */
  sessions: RoomSessions;
  /** Records the durable work a change implies in its own transaction: the empty-room timer (§15). */
  handovers: Handovers;
  /** Ending or deleting a room stops its recording (docs/decisions.md §6), recorded in that transaction. */
  recordingStop: RoomRecordingStop;
}

export class RoomService {
  private readonly tenants: TenantService;
  private readonly sessions: RoomSessions;
  private readonly handovers: Handovers;
  private readonly recordingStop: RoomRecordingStop;

  constructor(deps: RoomServiceDeps) {
    this.tenants = deps.tenants;
    this.sessions = deps.sessions;
    this.handovers = deps.handovers;
    this.recordingStop = deps.recordingStop;
  }

  async create(em: EntityManager, principal: Principal, input: { name: string; config?: RoomConfigInput }): Promise<Room> {
    const tenantId = tenantOf(principal);
    return this.handovers.transaction(em, (tx) => this.createLocked(tx, tenantId, input));
  }

  /**
   * Inside a transaction: locks the tenant row, so concurrent creations count active rooms one at a time and
   * `max_concurrent_rooms` holds exactly. The room's empty-room timer is recorded with it (an empty room ends
   * empty_room_timeout_minutes after its creation, docs/decisions.md §6, even if Temporal is down right now: §15). The caller
   * calls `handovers.committed()` once its transaction commits, so this process's relay starts the timer at once.
   */
  async createLocked(tx: EntityManager, tenantId: string, input: { name: string; config?: RoomConfigInput }): Promise<Room> {
    await lockRow(tx, 'tenants', tenantId);
    const tenant = await tx.findOneOrFail(TenantSchema, { id: tenantId }, { refresh: true });
    const active = await tx.count(RoomSchema, { tenant: tenantId, status: 'active' });
    if (active >= tenant.maxConcurrentRooms) throw limitExceeded('max_concurrent_rooms', tenant.maxConcurrentRooms);
    if (await tx.count(RoomSchema, { tenant: tenantId, status: 'active', name: input.name })) throw nameTaken(input.name);

    const forced = this.tenants.effectiveConfig(tenant).force_recording;
    const config = input.config ?? {};
    const room = tx.create(RoomSchema, {
      id: uuidv7(),
      tenant,
      name: input.name,
      status: 'active',
      maxParticipants: this.checkedMaxParticipants(tenant, config.max_participants),
      recordingEnabled: forced || (config.recording_enabled ?? false),
      chatEnabled: config.chat_enabled ?? true,
    });
    await flushUnique(tx, input.name);
    await this.handovers.record(tx, starts.emptyRoomTimer({ tenantId, roomId: room.id }));
    return room;
  }

  /**
   * A page of the tenant's rooms, newest first, each with its participant count, and the tenant's total: one statement
   * (the total is a window count over the tenant's rooms, taken before the page is cut). Only a page past the end,
   * which has no row to carry the total, needs a second query.
   */
  async list(em: EntityManager, principal: Principal, page: { limit: number; offset: number }): Promise<{ rooms: CountedRoom[]; total: number }> {
    const tenantId = tenantOf(principal);
    const { rooms, total } = await selectCountedRooms(em, {
      where: 'r.tenant_id = ?',
      tail: 'order by r.created_at desc, r.id desc limit ? offset ?',
      params: [tenantId, page.limit, page.offset],
      total: true,
    });
    return { rooms, total: total ?? (page.offset > 0 ? await em.count(RoomSchema, { tenant: tenantId }) : 0) };
  }

  /**
   * A room the caller may see (the rule of roomForPrincipal), with its participant count. By id (what clients send):
   * the room, within the tenant, and its count in one statement; by name, through roomForPrincipal.
   */
  async get(em: EntityManager, principal: Principal, roomRef: string): Promise<CountedRoom> {
    if (!isUuid(roomRef)) return withParticipantCount(em, await roomForPrincipal(em, principal, roomRef));
    checkRoomAccess(principal, roomRef);
    const { rooms } = await selectCountedRooms(em, { where: 'r.id = ? and r.tenant_id = ?', params: [roomRef, tenantOf(principal)] });
    if (!rooms[0]) throw notFound('Room');
    return rooms[0];
  }

  async update(em: EntityManager, principal: Principal, roomRef: string, patch: { name?: string; config?: RoomConfigInput }): Promise<CountedRoom> {
    const room = await roomForPrincipal(em, principal, roomRef);
    const updated = await em.transactional(async (tx) => {
      await lockRow(tx, 'rooms', room.id);
      const locked = await tx.findOneOrFail(RoomSchema, { id: room.id }, { refresh: true, populate: ['tenant'] });
      if (locked.status === 'ended') throw roomEnded();
      const tenant = locked.tenant as Tenant;
      if (patch.name !== undefined && patch.name !== locked.name) {
        if (await tx.count(RoomSchema, { tenant: tenant.id, status: 'active', name: patch.name })) throw nameTaken(patch.name);
        locked.name = patch.name;
      }
      const config = patch.config ?? {};
      if (config.max_participants !== undefined) locked.maxParticipants = this.checkedMaxParticipants(tenant, config.max_participants);
      if (config.chat_enabled !== undefined) locked.chatEnabled = config.chat_enabled;
      if (config.recording_enabled !== undefined) {
        if (!config.recording_enabled && this.tenants.effectiveConfig(tenant).force_recording) {
          throw validationError('/body/config/recording_enabled', 'The tenant forces recording (force_recording), so it cannot be disabled');
        }
        locked.recordingEnabled = config.recording_enabled;
      }
      await flushUnique(tx, locked.name);
      return locked;
    });
    return withParticipantCount(em, updated);
  }

  /** The API's end: a tenant, or the host of the room (docs/decisions.md §4). */
  async endByCaller(em: EntityManager, principal: Principal, roomRef: string): Promise<CountedRoom> {
    const room = await roomForPrincipal(em, principal, roomRef, ['host']);
    return withParticipantCount(em, await this.end(em, tenantOf(principal), room.id));
  }

  /**
   * Idempotent: ending an ended room returns it unchanged. What must follow commits with the change: presence cleared
   * and the sockets told (they close 4004), and the recording's stop recorded as a hand-over (docs/decisions.md §6, §15).
   */
  async end(em: EntityManager, tenantId: string, roomId: string): Promise<Room> {
    const { room, afterCommit } = await this.handovers.transaction(em, async (tx) => {
      await lockRow(tx, 'rooms', roomId);
      const locked = await tx.findOne(RoomSchema, { id: roomId, tenant: tenantId }, { refresh: true });
      if (!locked) throw notFound('Room');
      if (locked.status === 'ended') return { room: locked, afterCommit: null };
      locked.status = 'ended';
      locked.endedAt = new Date();
      await tx.flush();
      await this.recordingStop.whenRoomCloses(tx, { tenantId, id: roomId, name: locked.name }, 'ended');
      return { room: locked, afterCommit: await this.sessions.roomClosed(tx, { roomId, endedAt: locked.endedAt.toISOString(), deleted: false }) };
    });
    afterCommit?.();
    return room;
  }

  /** Permanent: the room and its participants go; connected clients are disconnected, its recording stopped. */
  async delete(em: EntityManager, principal: Principal, roomRef: string): Promise<void> {
    const { id: roomId } = await roomForPrincipal(em, principal, roomRef);
    const tenantId = tenantOf(principal);
    const afterCommit = await this.handovers.transaction(em, async (tx) => {
      const room = await tx.findOne(RoomSchema, { id: roomId, tenant: tenantId });
      if (!room) throw notFound('Room');
      await this.recordingStop.whenRoomCloses(tx, { tenantId, id: roomId, name: room.name }, 'deleted');
      // The room's turn (its event counter) before its row, the order a chat message takes them (the turn, then the
      // foreign-key lock on the row): deleting the row first would deadlock with a message in flight.
      const closed = await this.sessions.roomClosed(tx, { roomId, endedAt: new Date().toISOString(), deleted: true });
      if ((await tx.nativeDelete(RoomSchema, { id: roomId, tenant: tenantId })) === 0) throw notFound('Room');
      return closed;
    });
    afterCommit();
  }

  private checkedMaxParticipants(tenant: Tenant, requested: number | undefined): number {
    if (requested === undefined) return tenant.maxParticipantsPerRoom;
    if (requested > tenant.maxParticipantsPerRoom) throw limitExceeded('max_participants_per_room', tenant.maxParticipantsPerRoom);
    return requested;
  }
}

export const roomEnded = () => new ApiError('ROOM_ENDED', 'The room has ended and is read-only');
const nameTaken = (name: string) => new ApiError('ROOM_NAME_TAKEN', `An active room named "${name}" already exists`);

/** The partial unique index is the last word on names (e.g. a concurrent rename): report it as ROOM_NAME_TAKEN. */
async function flushUnique(tx: EntityManager, name: string): Promise<void> {
  try {
    await tx.flush();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw nameTaken(name);
    throw err;
  }
}
