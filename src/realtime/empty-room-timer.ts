import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Logger } from '../logger.ts';
import { emptyRoomWorkflow, emptyRoomWorkflowId, presenceSignal, roomClosedSignal } from '../../workflows/empty-room.ts';

/** What the real-time side tells the empty-room workflow (workflows/empty-room.ts). */
export interface EmptyRoomTimer {
  /** The room became empty (present false) or occupied (present true); `seq` orders the changes. */
  presenceChanged(tenantId: string, roomId: string, present: boolean, seq: number): Promise<void>;
  /** The room ended or was deleted. */
  roomClosed(roomId: string): Promise<void>;
}

export interface TemporalEmptyRoomTimerOptions {
  client: Client;
  taskQueue: string;
  logger: Logger;
}

/**
 * Signal-with-start: the first change (room creation counts as "empty") starts the room's workflow, later ones signal
 * it. A failure is logged, not thrown: the change it reports has already happened and the workflow re-checks the
 * database before ending a room.
 */
export class TemporalEmptyRoomTimer implements EmptyRoomTimer {
  private readonly options: TemporalEmptyRoomTimerOptions;

  constructor(options: TemporalEmptyRoomTimerOptions) {
    this.options = options;
  }

  async presenceChanged(tenantId: string, roomId: string, present: boolean, seq: number): Promise<void> {
    try {
      const client = this.options.client;
      await client.workflow.signalWithStart(emptyRoomWorkflow, {
        workflowId: emptyRoomWorkflowId(roomId),
        taskQueue: this.options.taskQueue,
        args: [{ tenantId, roomId }],
        signal: presenceSignal,
        signalArgs: [{ present, seq }],
      });
    } catch (err) {
      this.options.logger.error({ err, roomId }, 'could not signal the empty-room timer');
    }
  }

  async roomClosed(roomId: string): Promise<void> {
    try {
      const client = this.options.client;
      await client.workflow.getHandle(emptyRoomWorkflowId(roomId)).signal(roomClosedSignal);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return;
      this.options.logger.error({ err, roomId }, 'could not stop the empty-room timer');
    }
  }
}
