import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActiveRecording, ParticipantSummary, Role } from '../../generated/asyncapi.ts';
import type { Sql } from '../db/sql.ts';
import type { RoomAction } from './pg-bus.ts';

// Presence lives in the database (realtime_connections), so every API instance agrees on who is in a room and a
// crashed instance's sockets stop counting once their heartbeat is stale. The functions taking `Sql` run inside
// the room's transaction (PgRoomBus.append), so what they read and the events they imply are consistent.

// A row whose heartbeat is older than `staleAfterSeconds` (WS_PRESENCE_STALE_AFTER, 30 s by default) belongs to a dead
// instance: the reaper removes it and announces the departure. Every process that reads presence (the api's gateway
// and services, the worker's empty-room check) is given the same value from its configuration.

/**
 * How often an instance refreshes its rows: a third of the staleness, so a live instance has to miss two refreshes in a
 * row before its sockets stop counting. Derived rather than set, so the two cannot be configured the wrong way round.
 */
export function heartbeatMs(staleAfterSeconds: number): number {
  return Math.floor((staleAfterSeconds * 1000) / 3);
}

/** The condition of a live row. The staleness is written into the SQL (a setting, never client input): a number or nothing. */
function live(staleAfterSeconds: number): string {
  if (!Number.isFinite(staleAfterSeconds) || staleAfterSeconds <= 0) throw new Error(`invalid presence staleness: ${staleAfterSeconds}`);
  return `heartbeat_at > now() - make_interval(secs => ${staleAfterSeconds})`;
}

/** Ids of the participants with a live WebSocket in the room, on any instance (`GET …/participants?active=true`). */
export async function presentParticipantIds(em: EntityManager, roomId: string, staleAfterSeconds: number): Promise<Set<string>> {
  const rows = await em
    .getConnection()
    .execute<{ participant_id: string }[]>(
      `select distinct participant_id from realtime_connections where room_id = ? and ${live(staleAfterSeconds)}`,
      [roomId],
    );
  return new Set(rows.map((r) => r.participant_id));
}

export interface NewConnection {
  id: string;
  tenantId: string;
  roomId: string;
  participantId: string;
  instanceId: string;
  /** The participant's live sockets allowed at once (WS_MAX_SOCKETS_PER_PARTICIPANT); beyond it the oldest go. */
  maxSockets: number;
  /** WS_PRESENCE_STALE_AFTER: older sockets of the participant no longer count. */
  staleAfterSeconds: number;
}

/** What a room.snapshot tells (docs/decisions.md §11). */
export interface RoomState {
  participants: ParticipantSummary[];
  raised_hands: string[];
  recording: ActiveRecording | null;
}

export type JoinOutcome =
  | { ok: false; reason: 'room-ended' | 'participant-removed' }
  | {
      ok: true;
      me: ParticipantSummary;
      /** This is the participant's first live socket: it just became present. */
      becamePresent: boolean;
      /** The participant's oldest sockets this one displaced (over `maxSockets`): closed with 4006. */
      displaced: string[];
      state: RoomState;
    };

/** Records the socket and reads the room's state as the new member's snapshot. */
export async function join(sql: Sql, c: NewConnection): Promise<JoinOutcome> {
  const liveRow = live(c.staleAfterSeconds);
  const room = await sql.query<{ status: string }>('select status from rooms where id = $1', [c.roomId]);
  if (room.rows[0]?.status !== 'active') return { ok: false, reason: 'room-ended' };
  const me = await sql.query<ParticipantSummary & { removed: boolean }>(
    'select id, display_name, role, removed_at is not null as removed from participants where id = $1 and room_id = $2',
    [c.participantId, c.roomId],
  );
  if (!me.rows[0] || me.rows[0].removed) return { ok: false, reason: 'participant-removed' };
  const before = await sql.query(`select 1 from realtime_connections where participant_id = $1 and ${liveRow} limit 1`, [c.participantId]);
  await sql.query(
    `insert into realtime_connections (id, tenant_id, room_id, participant_id, instance_id, connected_at, heartbeat_at)
     values ($1, $2, $3, $4, $5, now(), now())`,
    [c.id, c.tenantId, c.roomId, c.participantId, c.instanceId],
  );
  // The cap counts the participant's live sockets on every instance; the displaced rows go now, so their sockets'
  // own departure later finds nothing to announce (the participant stays present through the new one).
  // The new socket itself always stays: the others keep their newest maxSockets - 1.
  const displaced = await sql.query<{ id: string }>(
    `delete from realtime_connections where id in (
       select id from realtime_connections where participant_id = $1 and id <> $2 and ${liveRow}
       order by connected_at desc, id desc offset $3)
     returning id`,
    [c.participantId, c.id, c.maxSockets - 1],
  );
  return {
    ok: true,
    me: summary(me.rows[0]),
    becamePresent: before.rowCount === 0,
    displaced: displaced.rows.map((r) => r.id),
    state: await roomState(sql, c.roomId, c.staleAfterSeconds),
  };
}

/** Who is present, whose hand is up and what is recorded: the room.snapshot's data. */
export async function roomState(sql: Sql, roomId: string, staleAfterSeconds: number): Promise<RoomState> {
  const participants = await sql.query<{ id: string; display_name: string; role: Role }>(
    `select p.id, p.display_name, p.role from participants p
     where p.id in (select participant_id from realtime_connections where room_id = $1 and ${live(staleAfterSeconds)})
     order by p.joined_at, p.id`,
    [roomId],
  );
  return { participants: participants.rows.map(summary), raised_hands: await raisedHands(sql, roomId), recording: await activeRecording(sql, roomId) };
}

/** Forgets a closed socket; when it was the participant's last, the participant leaves (hand lowered first). */
export async function leave(sql: Sql, connectionId: string, participantId: string, staleAfterSeconds: number): Promise<RoomAction[]> {
  const gone = await sql.query('delete from realtime_connections where id = $1', [connectionId]);
  // Already removed by a removal, the room's end or the reaper: whoever removed it announced the departure.
  if (gone.rowCount === 0) return [];
  const still = await sql.query(`select 1 from realtime_connections where participant_id = $1 and ${live(staleAfterSeconds)} limit 1`, [
    participantId,
  ]);
  if (still.rowCount !== 0) return [];
  return depart(sql, participantId);
}

/** A removed or replaced participant: its sockets stop counting now, before they are closed. */
export async function removeParticipant(
  sql: Sql,
  participantId: string,
  staleAfterSeconds: number,
): Promise<{ wasPresent: boolean; actions: RoomAction[] }> {
  const present = await sql.query(`select 1 from realtime_connections where participant_id = $1 and ${live(staleAfterSeconds)} limit 1`, [
    participantId,
  ]);
  await sql.query('delete from realtime_connections where participant_id = $1', [participantId]);
  if (present.rowCount === 0) {
    await sql.query('delete from raised_hands where participant_id = $1', [participantId]);
    return { wasPresent: false, actions: [] };
  }
  return { wasPresent: true, actions: await depart(sql, participantId) };
}

/** The room ended or was deleted: nobody is present any more. */
export async function clearRoom(sql: Sql, roomId: string): Promise<void> {
  await sql.query('delete from realtime_connections where room_id = $1', [roomId]);
  await sql.query('delete from raised_hands where room_id = $1', [roomId]);
}

/** Removes the room's stale sockets (their instance died) and announces the participants who thereby left. */
export async function reapRoom(sql: Sql, roomId: string, staleAfterSeconds: number): Promise<RoomAction[]> {
  const liveRow = live(staleAfterSeconds);
  const stale = await sql.query<{ participant_id: string }>(
    `delete from realtime_connections where room_id = $1 and not (${liveRow}) returning participant_id`,
    [roomId],
  );
  const actions: RoomAction[] = [];
  for (const participantId of new Set(stale.rows.map((r) => r.participant_id))) {
    const still = await sql.query(`select 1 from realtime_connections where participant_id = $1 and ${liveRow} limit 1`, [participantId]);
    if (still.rowCount === 0) actions.push(...(await depart(sql, participantId)));
  }
  return actions;
}

/** Whether the socket's row is still there (nobody removed it with its participant, room or instance). */
export async function connectionExists(sql: Sql, connectionId: string): Promise<boolean> {
  const { rowCount } = await sql.query('select 1 from realtime_connections where id = $1', [connectionId]);
  return Boolean(rowCount);
}

/** Where a socket's sender stands: in its room (whether the room takes chat), or no longer counted there. */
export type Standing = { member: true; chatEnabled: boolean } | { member: false };

/**
 * Whether what this socket sends may still reach its room (docs/decisions.md §16): its row is there (not removed with its
 * participant, its room or its tenant, nor displaced by a newer socket), its participant is not removed, its room is
 * active and its tenant exists. Read inside the room's turn (PgRoomBus.append) by the write it guards: a removal, end
 * or deletion that has answered committed while holding that turn, so this sees it, whichever instance holds the
 * socket and whether or not the socket has heard of it.
 */
export async function standing(sql: Sql, connectionId: string): Promise<Standing> {
  const { rows } = await sql.query<{ chat_enabled: boolean }>(
    `select r.chat_enabled from realtime_connections c
     join participants p on p.id = c.participant_id and p.removed_at is null
     join rooms r on r.id = c.room_id and r.status = 'active'
     join tenants t on t.id = r.tenant_id
     where c.id = $1`,
    [connectionId],
  );
  return rows[0] ? { member: true, chatEnabled: rows[0].chat_enabled } : { member: false };
}

/** Rooms holding sockets whose instance stopped its heartbeat. */
export async function roomsWithStaleConnections(sql: Sql, staleAfterSeconds: number): Promise<string[]> {
  const { rows } = await sql.query<{ room_id: string }>(
    `select distinct room_id from realtime_connections where not (${live(staleAfterSeconds)}) limit 100`,
  );
  return rows.map((r) => r.room_id);
}

export async function heartbeat(sql: Sql, instanceId: string): Promise<void> {
  await sql.query('update realtime_connections set heartbeat_at = now() where instance_id = $1', [instanceId]);
}

/** How many participants are present, for the empty-room timer. */
export async function presentCount(sql: Sql, roomId: string, staleAfterSeconds: number): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    `select count(distinct participant_id)::int as n from realtime_connections where room_id = $1 and ${live(staleAfterSeconds)}`,
    [roomId],
  );
  return rows[0].n;
}

/** The tenant of the room when it is active (an ended or deleted room: null). */
export async function activeRoomTenant(sql: Sql, roomId: string): Promise<string | null> {
  const { rows } = await sql.query<{ tenant_id: string }>(`select tenant_id from rooms where id = $1 and status = 'active'`, [roomId]);
  return rows[0]?.tenant_id ?? null;
}

/** Returns whether the hand went up now (raising a raised hand changes nothing). */
export async function raiseHand(sql: Sql, roomId: string, participantId: string): Promise<boolean> {
  const raised = await sql.query(
    'insert into raised_hands (participant_id, room_id, raised_at) values ($1, $2, clock_timestamp()) on conflict do nothing',
    [participantId, roomId],
  );
  return Boolean(raised.rowCount);
}

/** Returns whether the hand went down now. */
export async function lowerHand(sql: Sql, participantId: string): Promise<boolean> {
  const lowered = await sql.query('delete from raised_hands where participant_id = $1', [participantId]);
  return Boolean(lowered.rowCount);
}

async function depart(sql: Sql, participantId: string): Promise<RoomAction[]> {
  const hand = await sql.query('delete from raised_hands where participant_id = $1', [participantId]);
  const actions: RoomAction[] = [];
  if (hand.rowCount) actions.push({ k: 'send', m: { event: 'hand.lowered', data: { participant_id: participantId } } });
  actions.push({ k: 'send', m: { event: 'participant.left', data: { id: participantId } } });
  return actions;
}

async function raisedHands(sql: Sql, roomId: string): Promise<string[]> {
  const { rows } = await sql.query<{ participant_id: string }>(
    'select participant_id from raised_hands where room_id = $1 order by raised_at, participant_id',
    [roomId],
  );
  return rows.map((r) => r.participant_id);
}

async function activeRecording(sql: Sql, roomId: string): Promise<ActiveRecording | null> {
  const { rows } = await sql.query<{ id: string; started_at: Date | null; created_at: Date }>(
    `select id, started_at, created_at from recordings where room_id = $1 and status = 'recording' limit 1`,
    [roomId],
  );
  const row = rows[0];
  return row ? { recording_id: row.id, started_at: (row.started_at ?? row.created_at).toISOString() } : null;
}

function summary(row: { id: string; display_name: string; role: Role }): ParticipantSummary {
  return { id: row.id, display_name: row.display_name, role: row.role };
}
