import { LocalEventBus, type DomainEvent } from '../events/domain-events.ts';
import type { Logger } from '../logger.ts';
import type { EmptyRoomTimer } from '../temporal/empty-room-timer.ts';
import type { PgRoomBus } from './pg-bus.ts';

/**
 * The services' DomainEventPublisher: in-process listeners as before (LocalEventBus), plus notices to the room's
 * sockets on every API instance through PgRoomBus. Best effort, after the commit: a failure is logged, not thrown, and
 * nothing that must happen rides on it. Removals and a room's end or deletion reach the sockets inside the services'
 * own transactions (RoomSessions, room-sessions.ts); a closed room's recording stops through a workflow.
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
    switch (event.type) {
      case 'room.created':
        // Empty from creation: the timer starts now (DECISIONS §6). Timer calls are not awaited: a slow Temporal
        // must not slow the request (they log their own failures, and `seq` orders late signals).
        void this.timer.presenceChanged(event.tenantId, event.roomId, false, 0);
        return;
      case 'participant.added':
        // Announced as participant.joined when its socket opens. Also starts the room's timer if nothing has yet
        // (it normally has, from room.created, unless Temporal was unreachable then).
        void this.timer.ensureRunning(event.tenantId, event.roomId);
        return;
      case 'recording.started':
      case 'recording.stopped': {
        const m = { event: event.type, data: { recording_id: event.recordingId } } as const;
        await this.bus.append(event.roomId, async () => ({ actions: [{ k: 'send', m }], result: undefined }));
        return;
      }
      default:
        // participant.removed, room.ended, room.deleted: already told in the service's transaction.
        return;
    }
  }
}
