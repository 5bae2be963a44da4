import { EventEmitter } from 'node:events';
import type { ParticipantRole } from '../domain/principal.ts';

// What happens in a room, said once by the services that make it happen, after the change has committed. Nothing that
// must happen rides on an event (docs/architecture.md habit 14): a removal, a room's end or deletion reaches the sockets
// inside the service's own transaction (RoomSessions), and a workflow a change implies is a hand-over recorded with it.
// The API's publisher (RealtimeEventPublisher, src/realtime/room-events.ts) tells the room's sockets on every instance
// of a recording started or stopped and does nothing with the others; in-process subscribers (tests) see every event.
export type DomainEvent =
  /** Create Room, or a participant added to a room that did not exist yet. (Its empty-room timer is a hand-over.) */
  | { type: 'room.created'; tenantId: string; roomId: string }
  | { type: 'participant.added'; tenantId: string; roomId: string; participant: { id: string; display_name: string; role: ParticipantRole } }
  | { type: 'participant.removed'; tenantId: string; roomId: string; participantId: string; reason: 'removed' | 'replaced' }
  | { type: 'room.ended'; tenantId: string; roomId: string; endedAt: string }
  | { type: 'room.deleted'; tenantId: string; roomId: string }
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
