import type { EmptyRoomTimer } from './realtime.ports.ts';
import type { Sql } from '../db/sql.ts';
import type { PgRoomBus, RoomAction } from './pg-bus.ts';
import * as presence from './presence.ts';

// "The room became empty: tell the timer" (docs/decisions.md §6), said once for every way a participant stops being present:
// its last socket closes (gateway), its instance dies (reaper), it is removed or replaced (services).

export interface Departure {
  /** What the room hears (participant.left, hand.lowered, socket closes). */
  actions: RoomAction[];
  /** Somebody stopped being present: the room may have become empty. */
  departed: boolean;
}

type Produce = (sql: Sql) => Promise<Departure>;

export class Departures {
  private readonly bus: PgRoomBus;
  private readonly timer: EmptyRoomTimer;
  /** WS_PRESENCE_STALE_AFTER: whom "nobody present" counts. */
  private readonly staleAfterSeconds: number;

  constructor(deps: { bus: PgRoomBus; timer: EmptyRoomTimer; staleAfterSeconds: number }) {
    this.bus = deps.bus;
    this.timer = deps.timer;
    this.staleAfterSeconds = deps.staleAfterSeconds;
  }

  /** Runs a departure in a transaction of its own, then tells the timer if the room is now empty. */
  async append(roomId: string, produce: Produce): Promise<void> {
    const { seq, result } = await this.bus.append(roomId, (sql) => this.produce(sql, roomId, produce));
    this.tellTimer(roomId, seq, result);
  }

  /** Runs a departure in the caller's transaction; the caller runs what this returns once it has committed. */
  async appendIn(sql: Sql, roomId: string, produce: Produce): Promise<() => void> {
    const { seq, result } = await this.bus.appendIn(sql, roomId, (tx) => this.produce(tx, roomId, produce));
    return () => this.tellTimer(roomId, seq, result);
  }

  /** Read inside the room's turn, so "nobody present" is the room's state as of `seq`. */
  private async produce(sql: Sql, roomId: string, produce: Produce): Promise<{ actions: RoomAction[]; result: string | null }> {
    const { actions, departed } = await produce(sql);
    if (!departed) return { actions, result: null };
    const tenantId = await presence.activeRoomTenant(sql, roomId);
    const empty = tenantId !== null && (await presence.presentCount(sql, roomId, this.staleAfterSeconds)) === 0;
    return { actions, result: empty ? tenantId : null };
  }

  private tellTimer(roomId: string, seq: number, emptiedTenantId: string | null): void {
    // Not awaited: a slow Temporal must not hold up a socket or a request. The timer logs its own failures, `seq`
    // orders late signals, and the workflow re-checks the database before it ends a room.
    if (emptiedTenantId) void this.timer.presenceChanged(emptiedTenantId, roomId, false, seq);
  }
}
