import { EventEmitter } from 'node:events';
import type { ParticipantRole } from '../domain/principal.ts';

// What happens in a room, said once by the services that make it happen. The real-time gateway subscribes and turns
// these into WebSocket messages (and fans them out across API instances); nothing in the services knows about sockets.
export type DomainEvent =
  /** Starts the room's empty-room timer (src/realtime): a room nobody joins still ends. */
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

/** In-process publisher: listeners run in this process. The real-time issue adds cross-instance fan-out behind it. */
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
