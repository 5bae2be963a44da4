import { CloseCode } from '../../generated/asyncapi.ts';
import { LocalEventBus, type DomainEvent } from '../events/domain-events.ts';
import type { Logger } from '../logger.ts';
import type { EmptyRoomTimer } from './empty-room-timer.ts';
import type { PgRoomBus, RoomAction } from './pg-bus.ts';
import * as presence from './presence.ts';

/**
 * The services' DomainEventPublisher: in-process listeners as before (LocalEventBus), plus the room's sockets on every
 * API instance through PgRoomBus. A fan-out failure is logged, not thrown: the change is already committed and the
 * caller's request should not fail because a socket could not be told.
 */
export class RealtimeEventPublisher extends LocalEventBus {
  private readonly bus: PgRoomBus;
  private readonly timer: EmptyRoomTimer;
  private readonly logger: Logger;

  constructor(deps: { bus: PgRoomBus; timer: EmptyRoomTimer; logger: Logger }) {
    super();
    this.bus = deps.bus;
    this.timer = deps.timer;
    this.logger = deps.logger;
  }

  override async publish(event: DomainEvent): Promise<void> {
    await super.publish(event);
    try {
      await this.fanOut(event);
    } catch (err) {
      this.logger.error({ err, event: event.type, roomId: event.roomId }, 'real-time fan-out failed');
    }
  }

  private async fanOut(event: DomainEvent): Promise<void> {
    const send = (m: Extract<RoomAction, { k: 'send' }>['m']): RoomAction => ({ k: 'send', m });
    switch (event.type) {
      case 'room.created':
        // Empty from creation: the timer starts now (DECISIONS §6). Timer calls are not awaited: a slow Temporal
        // must not slow the request (they log their own failures, and `seq` orders late signals).
        void this.timer.presenceChanged(event.tenantId, event.roomId, false, 0);
        return;
      case 'participant.added':
        // Announced as participant.joined when its socket opens. Also starts the room's timer if nothing has yet
        // (it normally has, from room.created): seq 0 never overrides a real change.
        void this.timer.presenceChanged(event.tenantId, event.roomId, false, 0);
        return;
      case 'participant.removed': {
        const replaced = event.reason === 'replaced';
        const { seq, result } = await this.bus.append(event.roomId, async (sql) => {
          const removal = await presence.removeParticipant(sql, event.participantId);
          const actions: RoomAction[] = [
            ...removal.actions,
            replaced
              ? { k: 'close', p: event.participantId, code: CloseCode.REPLACED_BY_DUPLICATE, reason: 'Replaced by a new session' }
              : { k: 'close', p: event.participantId, code: CloseCode.PARTICIPANT_REMOVED, reason: 'Removed from the room' },
          ];
          const nowEmpty = removal.wasPresent && (await presence.isRoomActive(sql, event.roomId)) && (await presence.presentCount(sql, event.roomId)) === 0;
          return { actions, result: nowEmpty };
        });
        if (result) void this.timer.presenceChanged(event.tenantId, event.roomId, false, seq);
        return;
      }
      case 'room.ended':
      case 'room.deleted': {
        const endedAt = event.type === 'room.ended' ? event.endedAt : new Date().toISOString();
        await this.bus.append(event.roomId, async (sql) => {
          await presence.clearRoom(sql, event.roomId);
          return {
            actions: [send({ event: 'room.ended', data: { room_id: event.roomId, ended_at: endedAt } }), { k: 'end', code: CloseCode.ROOM_ENDED, reason: 'Room ended' }],
            result: undefined,
          };
        });
        if (event.type === 'room.deleted') await this.bus.forget(event.roomId);
        void this.timer.roomClosed(event.roomId);
        return;
      }
      case 'recording.started':
      case 'recording.stopped': {
        const message = { event: event.type, data: { recording_id: event.recordingId } } as const;
        await this.bus.append(event.roomId, async () => ({ actions: [send(message)], result: undefined }));
        return;
      }
    }
  }
}
