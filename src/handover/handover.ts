// The one way durable work is handed over from a database change to Temporal (docs/decisions.md §15): a transactional outbox.
// A service or an activity that changes state and implies a workflow records the start here, in the SAME transaction
// as its change (`record`), so the change and the obligation commit together or not at all. The relay (relay.ts)
// then starts what was recorded, idempotently by workflow id, until it is started. Two other starts exist, neither an
// obligation of a commit: a workflow's children (ingestion's retention and post-meeting run 1), which Temporal starts
// with the parent's own durable task; and the empty-room timer's presence signal (src/temporal/empty-room-timer.ts),
// a best-effort signal-with-start that may start the room's timer if its recorded start has not run yet; the room's
// own start is the hand-over recorded with it, and the timer re-reads the database before it ends a room.
import type { EntityManager } from '@mikro-orm/postgresql';
import { channel } from 'node:diagnostics_channel';
import type { OutsideStepTimings, WorkflowSubject } from '../../workflows/shared.ts';
import { currentTraceCarrier } from '../tracing/spans.ts';

/** A workflow start as the relay will make it: ids only in `args` (docs/decisions.md §13), never a secret. */
export interface HandoverStart {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  /** What the run's search attributes name (docs/decisions.md §13). */
  subject: WorkflowSubject;
  /** The run's one-line staticSummary. */
  summary: string;
  details?: string;
  /**
   * What a run already using the id means. USE_EXISTING (the default): the work is under way, done. TERMINATE_EXISTING:
   * replace it (Recover). A closed run: REJECT_DUPLICATE (the default) counts it as done, so a start relayed twice
   * never runs the work twice; ALLOW_DUPLICATE_FAILED_ONLY runs again after a failed run only.
   */
  conflict?: 'USE_EXISTING' | 'TERMINATE_EXISTING';
  reuse?: 'REJECT_DUPLICATE' | 'ALLOW_DUPLICATE_FAILED_ONLY' | 'ALLOW_DUPLICATE';
  /** Signal-with-start: the signal a running workflow gets instead (and a new one gets first). */
  signal?: { name: string; args: unknown[] };
}

export interface HandoverOptions {
  taskQueue: string;
  /** SHORT_OUTSIDE_STEP_TIMINGS (tests only, src/config.ts): laid into the input of every start recorded that takes them. */
  outsideStepTimings?: OutsideStepTimings;
}

/**
 * Published (synchronously) each time a transaction that recorded hand-overs has committed, before the relay is woken:
 * a point where tools outside the product may look in. Nothing in the product subscribes; the fault test of
 * docs/decisions.md §15 does, through dev/faults/exit-after-handover-commit.ts, to kill the process right there.
 */
const handoverCommitted = channel('convene:handover:committed');

/** Records hand-overs and wakes this process's relay once they have committed. */
export class Handovers {
  private readonly options: HandoverOptions;
  private wake: () => void = () => {};

  constructor(options: HandoverOptions) {
    this.options = options;
  }

  get taskQueue(): string {
    return this.options.taskQueue;
  }

  /** The relay registers itself here: `committed` then runs it at once, not at its next poll. */
  onCommit(wake: () => void): void {
    this.wake = wake;
  }

  /**
   * Records `start` inside the caller's transaction (`tx` must be one: em.transactional's). It is started only if and
   * once that transaction commits, in the trace of the caller (docs/decisions.md §12; none when tracing is off). A test
   * process's outsideStepTimings go into its input (withOutsideStepTimings); a production process has none.
   */
  async record(tx: EntityManager, given: HandoverStart): Promise<void> {
    const start = withOutsideStepTimings(given, this.options.outsideStepTimings);
    const trace = currentTraceCarrier();
    await tx.execute(
      'insert into workflow_handovers (workflow_type, workflow_id, task_queue, start, trace_context) values (?, ?, ?, ?, ?)',
      [start.workflowType, start.workflowId, this.options.taskQueue, JSON.stringify(start), trace ? JSON.stringify(trace) : null],
    );
  }

  /**
   * `work` in one transaction, then the relay woken: the usual way to change state and hand over its work. The result
   * is `work`'s; the caller answers once the change and its hand-over have committed (not once the workflow runs).
   */
  async transaction<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
    const result = await em.transactional(work);
    this.committed();
    return result;
  }

  /** A transaction that recorded hand-overs has committed (callers that run their own transaction call this). */
  committed(): void {
    if (handoverCommitted.hasSubscribers) handoverCommitted.publish(undefined);
    this.wake();
  }
}

/** The workflows whose input takes outsideStepTimings (workflows/shared.ts): those with a step calling a service outside. */
const TAKES_OUTSIDE_STEP_TIMINGS = new Set(['recordingIngestWorkflow', 'postMeetingWorkflow', 'transcriptionWorkflow', 'webhookDeliveryWorkflow']);

/**
 * `start` with the tests' shorter outside-step timings in its input (SHORT_OUTSIDE_STEP_TIMINGS, src/config.ts), when
 * there are any and its workflow takes them; else `start` itself, so a production start is recorded as it always was.
 * Handovers.record applies it to every start it records; a test that starts a run itself applies it by hand. It lives
 * here rather than beside the starts (starts.ts) so that file imports nothing back from this one.
 */
export function withOutsideStepTimings(start: HandoverStart, timings: OutsideStepTimings | undefined): HandoverStart {
  if (!timings || !TAKES_OUTSIDE_STEP_TIMINGS.has(start.workflowType)) return start;
  const [input, ...rest] = start.args;
  return { ...start, args: [{ ...(input as object), outsideStepTimings: timings }, ...rest] };
}
