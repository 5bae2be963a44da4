import type { EntityManager } from '@mikro-orm/postgresql';
import type { OperationHandlers } from '../../http/router.ts';
import type { components } from '../../../generated/openapi.ts';
import type { Room } from './room.entity.ts';
import { roomForPrincipal, tenantOf } from './room-access.ts';
import type { RoomService } from './room.service.ts';

type RoomBody = components['schemas']['Room'];
type RoomWithCount = components['schemas']['RoomWithParticipantCount'];

export function roomView(room: Room): RoomBody {
  return {
    id: room.id,
    name: room.name,
    status: room.status,
    config: { max_participants: room.maxParticipants, recording_enabled: room.recordingEnabled, chat_enabled: room.chatEnabled },
    created_at: room.createdAt.toISOString(),
    ...(room.endedAt ? { ended_at: room.endedAt.toISOString() } : {}),
  };
}

const withCount = (room: Room, count: number): RoomWithCount => ({ ...roomView(room), participant_count: count });

export function roomRoutes(deps: { rooms: RoomService; em: () => EntityManager }): OperationHandlers {
  const { rooms, em } = deps;
  const countOf = async (room: Room) => (await rooms.participantCounts(em(), [room.id])).get(room.id) ?? 0;

  return {
    createRoom: async (req, res) => {
      const room = await rooms.create(em(), tenantOf(req.principal!), req.body);
      res.status(201).json(roomView(room));
    },
    listRooms: async (req, res) => {
      const page = { limit: Number(req.query.limit ?? 20), offset: Number(req.query.offset ?? 0) };
      const { rooms: list, total, counts } = await rooms.list(em(), tenantOf(req.principal!), page);
      res.json({ rooms: list.map((r) => withCount(r, counts.get(r.id) ?? 0)), total, ...page });
    },
    getRoom: async (req, res) => {
      const room = await roomForPrincipal(em(), req.principal!, req.params.id as string);
      res.json(withCount(room, await countOf(room)));
    },
    updateRoom: async (req, res) => {
      const room = await roomForPrincipal(em(), req.principal!, req.params.id as string);
      const updated = await rooms.update(em(), room, req.body);
      res.json(withCount(updated, await countOf(updated)));
    },
    endRoom: async (req, res) => {
      const room = await roomForPrincipal(em(), req.principal!, req.params.id as string, ['host']);
      const ended = await rooms.end(em(), tenantOf(req.principal!), room.id);
      res.json(withCount(ended, await countOf(ended)));
    },
    deleteRoom: async (req, res) => {
      const room = await roomForPrincipal(em(), req.principal!, req.params.id as string);
      await rooms.delete(em(), tenantOf(req.principal!), room.id);
      res.status(204).end();
    },
  };
}
