// What the real-time side needs from outside it, as it states it: src/temporal/empty-room-timer.ts implements it, so
// the gateway knows nothing of workflows (docs/architecture.md habit 16).

/** What the real-time side tells the empty-room workflow (workflows/empty-room.ts). */
export interface EmptyRoomTimer {
  /** The room became empty (present false) or occupied (present true); `seq` orders the changes. */
  presenceChanged(tenantId: string, roomId: string, present: boolean, seq: number): Promise<void>;
  /** The room ended or was deleted. */
  roomClosed(roomId: string): Promise<void>;
  /** Cancels calls still in flight (shutdown). */
  close(): Promise<void>;
}
