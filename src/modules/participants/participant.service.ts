import type { EntityManager } from '@mikro-orm/postgresql';
import { v7 as uuidv7, validate as isUuid } from 'uuid';
import { lockRow } from '../../db/locks.ts';
import type { AfterCommit, RoomSessions } from '../../events/room-sessions.ports.ts';
import { ApiError, forbidden, notFound } from '../../domain/errors.ts';
import { tenantOf, type ParticipantRole, type Principal } from '../../domain/principal.ts';
import type { Handovers } from '../../handover/handover.ts';
import type { Room } from '../rooms/room.entity.ts';
import { findRoom, findRoomOrNull, roomForPrincipal } from '../rooms/room-access.ts';
import { roomEnded, type RoomService } from '../rooms/room.service.ts';
import { TenantSchema, type Tenant } from '../tenants/tenant.entity.ts';
import type { TenantConfig } from '../tenants/tenant-config.ts';
import type { TenantService } from '../tenants/tenant.service.ts';
import type { ParticipantTokenSet } from '../../security/token-sets.ts';
import { ParticipantSchema, type Participant } from './participant.entity.ts';
import type { ParticipantCredentials } from './participant.ports.ts';
import { insertParticipantLocked, refusal, type NewParticipant, type ParticipantRow, type ParticipantWriter } from './participant-insert.ts';

export interface ParticipantInput {
  display_name: string;
  external_user_id?: string;
  role?: ParticipantRole;
}

export interface ParticipantServiceDeps {
  tenants: TenantService;
  rooms: RoomService;
  auth: ParticipantCredentials;
  /** A removed or replaced participant's presence cleared and its sockets closed, in the removing transaction. */
  sessions: RoomSessions;
  /** Wakes the hand-over relay after an early join created a room (its empty-room timer, docs/decisions.md §15). */
  handovers: Pick<Handovers, 'committed'>;
  /** The pipelined insert of the common case (participant-insert.ts). */
  writer: ParticipantWriter;
  /** Participants with an open WebSocket (the real-time layer); without it nobody is present. */
  presentIn?: (em: EntityManager, roomId: string) => Promise<Set<string>>;
  /** Whether the room is being recorded now (the recordings module); without it, never. */
  isRecording?: (em: EntityManager, roomId: string) => Promise<boolean>;
}

export interface Added {
  participant: Participant;
  room: Room;
  roomCreated: boolean;
  tenant: Tenant;
  /** The tenant's effective config (secrets in the clear: never send it whole). */
  config: TenantConfig;
  tokens: ParticipantTokenSet;
  shouldStartRecording: boolean;
}

/** Participants: add (with early join, limits and the duplicate policy), list, remove, tokens, bulk (docs/decisions.md §6). */
export class ParticipantService {
  private readonly deps: ParticipantServiceDeps;
  constructor(deps: ParticipantServiceDeps) {
    this.deps = deps;
  }

  async add(em: EntityManager, principal: Principal, roomRef: string, input: ParticipantInput, options: { earlyJoin: boolean } = { earlyJoin: true }): Promise<Added> {
    const tenantId = tenantOf(principal);
    // Read before any lock or transaction: the insert re-checks the room's status and limit under the room's lock.
    const tenant = await em.findOneOrFail(TenantSchema, { id: tenantId });
    const config = this.deps.tenants.effectiveConfig(tenant);
    const found = await findRoomOrNull(em, tenantId, roomRef);
    // Read-only first, whatever else is wrong; an end after this read is caught by the insert itself.
    if (found?.status === 'ended') throw roomEnded();
    const fresh = (roomId: string): NewParticipant => ({
      id: uuidv7(),
      tenantId,
      roomId,
      displayName: input.display_name,
      externalUserId: input.external_user_id ?? null,
      role: input.role ?? 'participant',
      joinedAt: new Date(),
    });
    // The participant's tokens are signed first (no database, no lock) and their refresh row is stored in the
    // participant's own transaction (docs/decisions.md §15): the participant and its tokens exist together or not at all.
    const signed = async (p: NewParticipant) => ({
      p,
      ...(await this.deps.auth.signParticipantTokens(tenantId, { id: p.id, roomId: p.roomId, role: p.role })),
    });

    // Read before the insert: nothing after the commit may fail the request (the client would retry an add that was
    // made). A new room (early join) records nothing yet.
    const recording = found ? Boolean(await this.deps.isRecording?.(em, found.id)) : false;

    let added: { row: ParticipantRow; room: Room; roomCreated: boolean; tokens: ParticipantTokenSet };
    if (found && !this.mayReplace(input, config)) {
      // The common case, nothing to replace: the insert alone (participant-insert.ts) in a transaction of its own.
      const { p, tokens, refreshRow } = await signed(fresh(found.id));
      const row = await this.deps.writer.insert(p, refreshRow);
      if (!row) throw await refusal(em, tenant, found.id);
      added = { row, room: found, roomCreated: false, tokens };
    } else {
      const afterCommit: AfterCommit[] = [];
      added = await em.transactional(async (tx) => {
        let room = found;
        let roomCreated = false;
        if (!room) {
          // Early join: adding to a room that does not exist creates it (by name only: a UUID names no new room).
          if (!options.earlyJoin || !config.allow_early_join || isUuid(roomRef)) throw notFound('Room');
          // Look again under the tenant lock: a concurrent early join may have just created it.
          await lockRow(tx, 'tenants', tenantId);
          room = await findRoomOrNull(tx, tenantId, roomRef);
          if (!room) {
            room = await this.deps.rooms.createLocked(tx, tenantId, { name: roomRef });
            roomCreated = true;
          }
        }
        await lockRow(tx, 'rooms', room.id);
        // The duplicate policy: only the participants with the same external id become entities.
        const same = input.external_user_id === undefined ? [] : await tx.find(ParticipantSchema, { room: room.id, removedAt: null, externalUserId: input.external_user_id });
        const replaced = this.applyDuplicatePolicy(same, input.external_user_id, config.duplicate_participant_policy);
        for (const old of replaced) old.removedAt = new Date();
        await tx.flush(); // the replaced ones no longer count against the limit
        const { p, tokens, refreshRow } = await signed(fresh(room.id));
        const row = await insertParticipantLocked(tx, p, refreshRow);
        if (!row) throw await refusal(tx, tenant, room.id);
        for (const old of replaced) {
          await this.deps.auth.revokeParticipant(tx, old.id);
          afterCommit.push(await this.deps.sessions.participantRemoved(tx, { roomId: room.id, participantId: old.id, reason: 'replaced' }));
        }
        return { row, room, roomCreated, tokens };
      });
      if (added.roomCreated) this.deps.handovers.committed();
      for (const then of afterCommit) then();
    }

    const { room, roomCreated, tokens } = added;
    const participant = em.map(ParticipantSchema, added.row);
    return { participant, room, roomCreated, tenant, config, tokens, shouldStartRecording: this.shouldStartRecording(config, room, recording) };
  }

  /** Whether adding this participant may replace others (the duplicate policy needs the room's lock and a transaction). */
  private mayReplace(input: ParticipantInput, config: TenantConfig): boolean {
    return input.external_user_id !== undefined && config.duplicate_participant_policy !== 'allow';
  }

  /** docs/decisions.md §6: recording enabled for the room, the tenant wants it started, and nothing is recording yet. */
  private shouldStartRecording(config: TenantConfig, room: Room, recording: boolean): boolean {
    return room.recordingEnabled && (config.force_recording || config.auto_start_recording) && !recording;
  }

  /** Returns the current participants a new one replaces; throws for `reject`. */
  private applyDuplicatePolicy(current: Participant[], externalUserId: string | undefined, policy: string): Participant[] {
    if (externalUserId === undefined) return [];
    const same = current.filter((p) => p.externalUserId === externalUserId);
    if (same.length === 0 || policy === 'allow') return [];
    if (policy === 'reject') throw new ApiError('DUPLICATE_PARTICIPANT', `A participant with external_user_id "${externalUserId}" is already in the room`);
    return same; // disconnect_existing
  }

  async list(em: EntityManager, principal: Principal, roomRef: string, options: { active: boolean }) {
    const room = await roomForPrincipal(em, principal, roomRef);
    const participants = await em.find(ParticipantSchema, { room: room.id, removedAt: null }, { orderBy: { joinedAt: 'asc', id: 'asc' } });
    if (!options.active) return participants;
    const present = (await this.deps.presentIn?.(em, room.id)) ?? new Set<string>();
    return participants.filter((p) => present.has(p.id));
  }

  /**
   * Kicks a participant: its tokens stop working at once and, in the same transaction, its presence is cleared and its
   * sockets are told to close (4003).
   */
  async remove(em: EntityManager, principal: Principal, roomRef: string, participantId: string): Promise<void> {
    const room = await roomForPrincipal(em, principal, roomRef, ['host']);
    const afterCommit = await em.transactional(async (tx) => {
      const participant = await this.findCurrent(tx, room, participantId);
      participant.removedAt = new Date();
      await tx.flush();
      await this.deps.auth.revokeParticipant(tx, participant.id);
      return this.deps.sessions.participantRemoved(tx, { roomId: room.id, participantId, reason: 'removed' });
    });
    afterCommit();
  }

  /** A fresh token set for an existing participant; a participant may reissue only its own. */
  async reissueTokens(em: EntityManager, principal: Principal, roomRef: string, participantId: string): Promise<ParticipantTokenSet> {
    const room = await roomForPrincipal(em, principal, roomRef);
    if (principal.kind === 'participant' && principal.participantId !== participantId) throw forbidden('A participant may reissue only its own tokens');
    const participant = await this.findCurrent(em, room, participantId);
    const tenant = await em.findOneOrFail(TenantSchema, { id: room.tenant.id });
    return this.deps.auth.issueParticipantTokens(em, tenant, participant);
  }

  /** Each entry is added on its own: one failure never undoes the others (the spec's per-item results). */
  async bulkAdd(em: EntityManager, principal: Principal, roomRef: string, entries: Partial<ParticipantInput>[]) {
    const room = await findRoom(em, tenantOf(principal), roomRef); // bulk never creates a room
    const results = [];
    for (const entry of entries) {
      if (!entry.display_name) {
        results.push({ success: false as const, error: 'display_name is required', code: 'VALIDATION_ERROR' as const });
        continue;
      }
      try {
        const added = await this.add(em.fork(), principal, room.id, entry as ParticipantInput, { earlyJoin: false });
        results.push({ participant_id: added.participant.id, success: true as const, access_token: added.tokens.access_token, auth_token: added.tokens.auth_token });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        results.push({ success: false as const, error: err.message, code: err.code });
      }
    }
    return results;
  }

  private async findCurrent(em: EntityManager, room: Room, participantId: string): Promise<Participant> {
    if (!isUuid(participantId)) throw notFound('Participant');
    const participant = await em.findOne(ParticipantSchema, { id: participantId, room: room.id, removedAt: null });
    if (!participant) throw notFound('Participant');
    return participant;
  }
}
