// Test helpers around the hand-over outbox (src/handover/, docs/decisions.md §15): wait for a recorded start to become a run
// (with a generous deadline and the time it took logged, never a wall-clock assertion), read the outbox, and run a
// relay for a test app's database against a Temporal server of the test's choosing ("another process's relay").
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { Orm } from '../../src/db/orm.ts';
import { Handovers } from '../../src/handover/handover.ts';
import { HandoverRelay } from '../../src/handover/relay.ts';
import { createLogger } from '../../src/logger.ts';

/** Resolves with the run once the workflow exists (the relay started it); fails after `deadlineMs`. */
export async function startedRun(client: Client, workflowId: string, deadlineMs = 90_000): Promise<WorkflowHandle> {
  const begun = Date.now();
  for (;;) {
    const handle = client.workflow.getHandle(workflowId);
    try {
      await handle.describe();
      console.log(`[handover] ${workflowId} started after ${Date.now() - begun} ms`);
      return handle;
    } catch (err) {
      if ((err as Error).name !== 'WorkflowNotFoundError') throw err;
    }
    if (Date.now() - begun > deadlineMs) throw new Error(`${workflowId} was not started within ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface HandoverRow {
  workflow_type: string;
  workflow_id: string;
  attempts: number;
  last_error: string | null;
  /** Whether the relay has started it. */
  started: boolean;
}

const ROWS = 'select workflow_type, workflow_id, attempts, last_error, started_at is not null as started from workflow_handovers';

/** The outbox rows of a workflow id (or all), oldest first. */
export async function handoverRows(orm: Orm, workflowId?: string): Promise<HandoverRow[]> {
  const em = orm.em.fork();
  return workflowId
    ? em.execute(`${ROWS} where workflow_id = ? order by id`, [workflowId])
    : em.execute(`${ROWS} order by id`);
}

/** A relay over `orm`'s outbox that reaches `client`'s Temporal: what another api or worker process would run. */
export function startRelay(orm: Orm, client: Client, taskQueue: string, pollMs = 200): HandoverRelay {
  const relay = new HandoverRelay({ orm, client, handovers: new Handovers({ taskQueue }), logger: createLogger('silent'), pollMs });
  relay.start();
  return relay;
}
