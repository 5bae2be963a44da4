// What the rooms module needs from outside it, as the module states it. The recordings module implements it
// (src/modules/recordings/recording-stop.ts), so rooms never import recordings: a recording belongs to a room, not
// the reverse (docs/architecture.md habit 16).
import type { EntityManager } from '@mikro-orm/postgresql';

/** The room whose recording must stop, as the closing transaction knows it. */
export interface ClosingRoom {
  tenantId: string;
  id: string;
  name: string;
}

export interface RoomRecordingStop {
  /**
   * Called inside the transaction that ends or deletes `room` (End/Delete Room, Delete Tenant; docs/decisions.md §6,
   * §15): records the durable run that stops the room's recording, started once that transaction has committed.
   */
  whenRoomCloses(tx: EntityManager, room: ClosingRoom, how: 'ended' | 'deleted'): Promise<void>;
}
