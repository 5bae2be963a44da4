import type { EntityManager } from '@mikro-orm/postgresql';
import { CloseCode } from '../../generated/asyncapi.ts';
import { transactionSql } from '../db/transaction-sql.ts';
import type { AfterCommit, RoomSessions } from '../events/room-sessions.ports.ts';
import { Departures } from './departures.ts';
import type { EmptyRoomTimer } from './realtime.ports.ts';
import type { PgRoomBus, RoomAction } from './pg-bus.ts';
import * as presence from './presence.ts';

/** The services' RoomSessions: presence cleanup and the room's announcement inside the service's transaction. */
export class RealtimeRoomSessions implements RoomSessions {
  private readonly bus: PgRoomBus;
  private readonly timer: EmptyRoomTimer;
  private readonly departures: Departures;
  /** After how long without a heartbeat a socket's row belongs to a dead instance (WS_PRESENCE_STALE_AFTER). */
  private readonly staleAfterSeconds: number;

  constructor(deps: { bus: PgRoomBus; timer: EmptyRoomTimer; staleAfterSeconds: number }) {
    this.bus = deps.bus;
    this.timer = deps.timer;
    this.departures = new Departures(deps);
    this.staleAfterSeconds = deps.staleAfterSeconds;
  }

  async participantRemoved(tx: EntityManager, change: { roomId: string; participantId: string; reason: 'removed' | 'replaced' }): Promise<AfterCommit> {
    const { roomId, participantId } = change;
    const close: RoomAction =
      change.reason === 'replaced'
        ? { k: 'close', p: participantId, code: CloseCode.REPLACED_BY_DUPLICATE, reason: 'Replaced by a new session' }
        : { k: 'close', p: participantId, code: CloseCode.PARTICIPANT_REMOVED, reason: 'Removed from the room' };
    return this.departures.appendIn(transactionSql(tx), roomId, async (sql) => {
      const removal = await presence.removeParticipant(sql, participantId, this.staleAfterSeconds);
      return { actions: [...removal.actions, close], departed: removal.wasPresent };
    });
  }

  async roomClosed(tx: EntityManager, change: { roomId: string; endedAt: string; deleted: boolean }): Promise<AfterCommit> {
    const { roomId, endedAt } = change;
    const sql = transactionSql(tx);
    await this.bus.appendIn(sql, roomId, async (s) => {
      await presence.clearRoom(s, roomId);
      const actions: RoomAction[] = [
        { k: 'send', m: { event: 'room.ended', data: { room_id: roomId, ended_at: endedAt } } },
        { k: 'end', code: CloseCode.ROOM_ENDED, reason: 'Room ended' },
      ];
      return { actions, result: undefined };
    });
    // A deleted room's counter goes with it, once its last batch is announced (at the same commit).
    if (change.deleted) await this.bus.forget(roomId, sql);
    // Nothing left to time. Best effort: a lost signal only lets the timer fire and find the room gone.
    return () => void this.timer.roomClosed(roomId);
  }
}
