import type { EntityManager } from '@mikro-orm/postgresql';
import type { components } from '../../../generated/openapi.ts';
import { handler, type Handlers } from '../../http/handler.ts';
import { pageOf } from '../../http/page.ts';
import type { Room } from './room.entity.ts';
import type { CountedRoom } from './room-counts.ts';
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

const withCount = ({ room, participantCount }: CountedRoom): RoomWithCount => ({ ...roomView(room), participant_count: participantCount });

// Thin handlers: read the typed input, call the service (which checks access), shape the answer as the spec says.
export function roomRoutes(deps: { rooms: RoomService; em: () => EntityManager }): Handlers {
  const { rooms, em } = deps;
  return {
    createRoom: handler<'createRoom'>(async ({ body }, principal) => ({ status: 201, body: roomView(await rooms.create(em(), principal, body)) })),
    listRooms: handler<'listRooms'>(async ({ query }, principal) => {
      const page = pageOf(query);
      const { rooms: list, total } = await rooms.list(em(), principal, page);
      return { status: 200, body: { rooms: list.map(withCount), total, ...page } };
    }),
    getRoom: handler<'getRoom'>(async ({ params }, principal) => ({ status: 200, body: withCount(await rooms.get(em(), principal, params.id)) })),
    updateRoom: handler<'updateRoom'>(async ({ params, body }, principal) => ({
      status: 200,
      body: withCount(await rooms.update(em(), principal, params.id, body)),
    })),
    endRoom: handler<'endRoom'>(async ({ params }, principal) => ({ status: 200, body: withCount(await rooms.endByCaller(em(), principal, params.id)) })),
    deleteRoom: handler<'deleteRoom'>(async ({ params }, principal) => {
      await rooms.delete(em(), principal, params.id);
      return { status: 204 };
    }),
  };
}
