import type { EntityManager } from '@mikro-orm/postgresql';

/** What the caller runs once its transaction has committed (best-effort follow-ups, e.g. the empty-room timer). */
export type AfterCommit = () => void;

/**
 * The rooms' live sessions as the services see them (implemented by src/realtime/room-sessions.ts). Each call runs in
 * the service's own transaction: the participant's or room's presence is cleared and the sockets are told (a NOTIFY,
 * delivered only at commit) together with the change itself, so a crash after the commit cannot leave a removed
 * participant connected or an ended room's sockets open. Nothing here is carried by the in-process event bus.
 */
export interface RoomSessions {
  /** A participant was removed or replaced by a duplicate: its sockets stop counting and close (4003 / 4002). */
  participantRemoved(tx: EntityManager, change: { roomId: string; participantId: string; reason: 'removed' | 'replaced' }): Promise<AfterCommit>;
  /** The room ended or was deleted: nobody is present any more, its sockets get room.ended and close (4004). */
  roomClosed(tx: EntityManager, change: { roomId: string; endedAt: string; deleted: boolean }): Promise<AfterCommit>;
}
