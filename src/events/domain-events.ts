import { EventEmitter } from 'node:events';

// What happens in a room that its sockets hear of after the change has committed: a recording started or stopped, said
// once by the service or stage that makes it happen. The API's publisher (RealtimeEventPublisher,
// src/realtime/room-events.ts) tells the room's sockets on every instance; in-process subscribers (tests) see the same.
// Nothing that must happen rides on an event (docs/architecture.md habit 14): a removal, a room's end or deletion
// reaches the sockets inside the service's own transaction (RoomSessions), and a workflow a change implies is a
// hand-over recorded with it; so those changes publish no event at all.
export type DomainEvent =
  | { type: 'recording.started'; tenantId: string; roomId: string; recordingId: string; startedAt: string }
  | { type: 'recording.stopped'; tenantId: string; roomId: string; recordingId: string };

export type DomainEventType = DomainEvent['type'];

export interface DomainEventPublisher {
  /** Called after the change is committed. */
  publish(event: DomainEvent): Promise<void>;
}

/** In-process publisher: listeners run in this process. RealtimeEventPublisher (src/realtime/) extends it with the sockets' notices. */
export class LocalEventBus implements DomainEventPublisher {
  private readonly emitter = new EventEmitter();

  async publish(event: DomainEvent): Promise<void> {
    this.emitter.emit('event', event);
  }

  subscribe(listener: (event: DomainEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }
}
