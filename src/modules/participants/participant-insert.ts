import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { createPool } from '../../db/pool.ts';
import { notFound } from '../../domain/errors.ts';
import type { ParticipantRole } from '../../domain/principal.ts';
import type { Logger } from '../../logger.ts';
import { metrics } from '../../metrics/metrics.ts';
import type { RefreshRow } from '../../security/token-sets.ts';
import { limitExceeded, roomEnded } from '../rooms/room.service.ts';
import { RoomSchema } from '../rooms/room.entity.ts';

export interface NewParticipant {
  id: string;
  tenantId: string;
  roomId: string;
  displayName: string;
  externalUserId: string | null;
  role: ParticipantRole;
  joinedAt: Date;
}

export type ParticipantRow = Record<string, unknown>;

/**
 * The room's participant limit and its active status, in the one statement that adds a participant (docs/decisions.md §6).
 * It runs after the room's row lock, in the same transaction: a statement of its own reads the participants as they
 * are now (READ COMMITTED takes a snapshot per statement), so adds waiting on that lock count each other exactly.
 * Inserts nothing when the room is not active, not the tenant's, or full.
 */
const INSERT_IF_ROOM_HAS_SPACE = `insert into participants (id, tenant_id, room_id, display_name, external_user_id, role, joined_at)
select ?, r.tenant_id, r.id, ?, ?, ?, ?
from rooms r
where r.id = ? and r.tenant_id = ? and r.status = 'active'
  and (select count(*) from participants p where p.room_id = r.id and p.removed_at is null) < r.max_participants
returning *`;

const LOCK_ROOM = 'select 1 from rooms where id = ? for no key update';

/**
 * The participant's refresh token, in the same transaction (docs/decisions.md §15): stored only when the participant was (the
 * insert above is visible to this later statement of the transaction). A participant never exists without its tokens,
 * so a failure after the commit cannot leave a participant the client was never told about, with no tokens to use.
 */
const INSERT_REFRESH_TOKEN = `insert into refresh_tokens (jti, family_id, tenant_id, participant_id, expires_at, created_at)
select ?, ?, ?, ?, ?, now() where exists (select 1 from participants where id = ?)`;

const refreshParams = (r: RefreshRow) => [r.jti, r.familyId, r.tenantId, r.participantId, r.expiresAt, r.participantId];

const insertParams = (p: NewParticipant) => [p.id, p.displayName, p.externalUserId, p.role, p.joinedAt, p.roomId, p.tenantId];

/** MikroORM's `?` placeholders as node-postgres's `$1, $2, …` (the statements above hold no other question mark). */
const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

// The writer's statements in node-postgres's form, rewritten once rather than per insert.
const LOCK_ROOM_PG = numbered(LOCK_ROOM);
const INSERT_IF_ROOM_HAS_SPACE_PG = numbered(INSERT_IF_ROOM_HAS_SPACE);
const INSERT_REFRESH_TOKEN_PG = numbered(INSERT_REFRESH_TOKEN);

/**
 * Adds participants, each in a transaction of its own: the room's lock, the insert, its refresh token, the commit. Its
 * connections are in pipeline mode (node-postgres `pipeline: true`): the five statements go out together and PostgreSQL runs them back to
 * back, so the room's lock is held for the database's own work, with no round trip to this process and no JavaScript
 * in between. Through the EntityManager each step waited for a turn of an event loop busy with the other requests,
 * and concurrent adds to one room queue on that lock. A pool of its own: MikroORM's connections are not pipelined.
 */
export class ParticipantWriter {
  private readonly pool: pg.Pool;

  constructor(options: { databaseUrl: string; logger: Logger; poolSize?: number }) {
    this.pool = createPool({ name: 'participant-writer', logger: options.logger, connectionString: options.databaseUrl, max: options.poolSize ?? 4, pipeline: true });
    metrics.watchPool('participant-writer', this.pool);
  }

  /**
   * The inserted row, or undefined when nothing was inserted (`refusal` says why). `refresh` (the participant's signed
   * refresh token) is stored in the same transaction.
   */
  async insert(p: NewParticipant, refresh: RefreshRow): Promise<ParticipantRow | undefined> {
    const client = await this.pool.connect();
    let failure: Error | undefined;
    try {
      const settled = await Promise.allSettled([
        client.query('begin'),
        client.query(LOCK_ROOM_PG, [p.roomId]),
        client.query(INSERT_IF_ROOM_HAS_SPACE_PG, insertParams(p)),
        client.query(INSERT_REFRESH_TOKEN_PG, refreshParams(refresh)),
        client.query('commit'), // after a failed statement PostgreSQL answers a COMMIT with a rollback
      ]);
      const failed = settled.find((s) => s.status === 'rejected');
      if (failed) throw (failure = failed.reason as Error);
      return (settled[2] as PromiseFulfilledResult<pg.QueryResult<ParticipantRow>>).value.rows[0];
    } finally {
      client.release(failure); // a connection that failed is closed, not reused
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** The same inserts inside a caller's transaction that already holds the room's lock (the duplicate policy, early join). */
export async function insertParticipantLocked(tx: EntityManager, p: NewParticipant, refresh: RefreshRow): Promise<ParticipantRow | undefined> {
  const rows: ParticipantRow[] = await tx.execute(INSERT_IF_ROOM_HAS_SPACE, insertParams(p));
  if (rows[0]) await tx.execute(INSERT_REFRESH_TOKEN, refreshParams(refresh));
  return rows[0];
}

/** Why INSERT_IF_ROOM_HAS_SPACE inserted nothing: the room is gone, has ended, or is full. */
export async function refusal(em: EntityManager, tenant: { id: string; maxParticipantsPerRoom: number }, roomId: string): Promise<Error> {
  const room = await em.findOne(RoomSchema, { id: roomId, tenant: tenant.id }, { refresh: true });
  if (!room) return notFound('Room');
  if (room.status === 'ended') return roomEnded();
  const limit = room.maxParticipants < tenant.maxParticipantsPerRoom ? 'max_participants' : 'max_participants_per_room';
  return limitExceeded(limit, room.maxParticipants);
}
