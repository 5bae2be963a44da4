import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Logger } from '../logger.ts';
import { metrics } from '../metrics/metrics.ts';
import type { EmptyRoomTimer } from '../realtime/realtime.ports.ts';
import type { emptyRoomWorkflow } from '../../workflows/empty-room.ts';
import { emptyRoomWorkflowId, presenceSignal, roomClosedSignal, searchAttributesFor, type PresenceSignal } from '../../workflows/shared.ts';

const CALL_DEADLINE_MS = 5000;

export interface TemporalEmptyRoomTimerOptions {
  client: Client;
  taskQueue: string;
  logger: Logger;
}

/**
 * Presence changes, signal-with-start: a change reaches the room's workflow, or starts it if it is not running (its
 * first start is the hand-over recorded with the room, src/handover/, docs/decisions.md §15). A failure is logged, not thrown:
 * the change it reports has already happened and the workflow re-checks the database before ending a room.
 */
export class TemporalEmptyRoomTimer implements EmptyRoomTimer {
  private readonly options: TemporalEmptyRoomTimerOptions;
  // Callers do not wait for these calls, so each is bounded by a deadline (the SDK retries an unreachable server until
  // then; an abort signal does not stop those retries) and close() waits for the ones in flight: never a call left
  // retrying on a closed connection.
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(options: TemporalEmptyRoomTimerOptions) {
    this.options = options;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
  }

  private call(fn: (client: Client) => Promise<unknown>): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('empty-room timer closed'));
    const client = this.options.client;
    const p = client.withDeadline(Date.now() + CALL_DEADLINE_MS, () => fn(client));
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p)).catch(() => {});
    return p;
  }

  async presenceChanged(tenantId: string, roomId: string, present: boolean, seq: number): Promise<void> {
    try {
      await this.call((client) => client.workflow.signalWithStart<typeof emptyRoomWorkflow, [PresenceSignal]>('emptyRoomWorkflow', {
        workflowId: emptyRoomWorkflowId(roomId),
        taskQueue: this.options.taskQueue,
        args: [{ tenantId, roomId }],
        signal: presenceSignal,
        signalArgs: [{ present, seq }],
        // Used by the start only (a running workflow keeps its own): docs/decisions.md §13.
        typedSearchAttributes: searchAttributesFor({ tenantId, roomId }),
        staticSummary: `end room ${roomId} once it has been empty for the tenant's empty_room_timeout_minutes`,
      }));
      metrics.workflowStarted('emptyRoomWorkflow');
    } catch (err) {
      if (this.closed) return;
      this.options.logger.error({ err, roomId }, 'could not signal the empty-room timer');
    }
  }

  async roomClosed(roomId: string): Promise<void> {
    try {
      await this.call((client) => client.workflow.getHandle(emptyRoomWorkflowId(roomId)).signal(roomClosedSignal));
    } catch (err) {
      if (err instanceof WorkflowNotFoundError || this.closed) return;
      this.options.logger.error({ err, roomId }, 'could not stop the empty-room timer');
    }
  }
}
