import { LocalEventBus, type DomainEvent } from '../events/domain-events.ts';
import type { Logger } from '../logger.ts';
import type { PgRoomBus } from './pg-bus.ts';

/**
 * The services' DomainEventPublisher: in-process listeners (LocalEventBus; tests subscribe), plus notices to the room's
 * sockets on every API instance through PgRoomBus. Best effort, after the commit: a failure is logged, not thrown, and
 * nothing that must happen rides on it. Removals and a room's end or deletion reach the sockets inside the services'
 * own transactions (RoomSessions, room-sessions.ts); a closed room's recording stops through a workflow.
 */
export class RealtimeEventPublisher extends LocalEventBus {
  private readonly bus: PgRoomBus;
  private readonly logger: Logger;

  constructor(deps: { bus: PgRoomBus; logger: Logger }) {
    super();
    this.bus = deps.bus;
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

  /** recording.started or recording.stopped, to the room's sockets (spec/asyncapi.yaml). */
  private async fanOut(event: DomainEvent): Promise<void> {
    const m = { event: event.type, data: { recording_id: event.recordingId } } as const;
    await this.bus.append(event.roomId, async () => ({ actions: [{ k: 'send', m }], result: undefined }));
  }
}
