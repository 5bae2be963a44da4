// A room with the number of its participants, as Get, List, Update and End Room answer it. The count is defined once
// (PARTICIPANT_COUNT) and read in the same statement as the room where the room is read here (Get Room by id, List
// Rooms: one round trip, BENCHMARKS.md "get room", "list rooms"); the rows become the ORM's entity through em.map.
import type { EntityDictionary } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { RoomSchema, type Room } from './room.entity.ts';

/** A room with the number of its participants (added and not removed), as the API shows it. */
export interface CountedRoom {
  room: Room;
  participantCount: number;
}

/** A room's participants, added and not removed: the one count, as SQL over the room aliased `r`. */
const PARTICIPANT_COUNT = '(select count(*)::int from participants p where p.room_id = r.id and p.removed_at is null)';

type CountedRow = EntityDictionary<Room> & { participant_count: number; total?: number };

/**
 * The rooms `where` selects (SQL over `r`, then `tail`: order, limit), each with its participant count, in one
 * statement; `total` (a window count over what `where` selects) when asked for.
 */
export async function selectCountedRooms(
  em: EntityManager,
  query: { where: string; tail?: string; params: unknown[]; total?: boolean },
): Promise<{ rooms: CountedRoom[]; total: number | undefined }> {
  const total = query.total ? ', count(*) over ()::int as total' : '';
  const rows = await em.execute<CountedRow[]>(
    `select r.*, ${PARTICIPANT_COUNT} as participant_count${total} from rooms r where ${query.where} ${query.tail ?? ''}`,
    query.params,
  );
  const rooms = rows.map(({ participant_count, total: _total, ...columns }) => ({ room: em.map(RoomSchema, columns), participantCount: participant_count }));
  return { rooms, total: rows[0]?.total };
}

/** `room` (already read) with its participant count. */
export async function withParticipantCount(em: EntityManager, room: Room): Promise<CountedRoom> {
  const rows = await em.execute<Array<{ n: number }>>(`select ${PARTICIPANT_COUNT} as n from rooms r where r.id = ?`, [room.id]);
  return { room, participantCount: rows[0]?.n ?? 0 };
}
