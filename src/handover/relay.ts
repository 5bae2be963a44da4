// The relay of the hand-over outbox (handover.ts, docs/decisions.md §15). Every api and worker process runs one: it takes
// pending rows with SELECT … FOR UPDATE SKIP LOCKED (so processes share the work and never start a row twice at the
// same moment), starts each workflow by its id, and marks the row started. A start that fails (Temporal down or slow)
// leaves the row pending with a later next_attempt_at (capped backoff); a process that dies holding rows releases
// their locks with its connection. Started rows are kept a day for operators, then removed.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Orm } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import { metrics } from '../metrics/metrics.ts';
import { searchAttributesFor } from '../../workflows/shared.ts';
import { context, contextFromCarrier, ROOT_CONTEXT, SpanKind, withSpan, type TraceCarrier } from '../tracing/spans.ts';
import type { HandoverStart, Handovers } from './handover.ts';

/** Rows taken per pass; a pass repeats while it finds a full batch. */
const BATCH = 20;
/** One start may take this long (the SDK retries an unreachable server until its deadline). */
const START_DEADLINE_MS = 5000;
/** Backoff of a row whose start failed: 1 s, 2 s, 4 s … capped. */
const MAX_BACKOFF_SECONDS = 30;
/** Started rows are kept this long for operators, and pruned at most this often by each process. */
const KEEP_STARTED = '1 day';
const PRUNE_EVERY_MS = 10 * 60_000;

interface PendingRow {
  id: string;
  workflow_id: string;
  task_queue: string;
  start: HandoverStart;
  attempts: number;
  trace_context: TraceCarrier | null;
}

export interface HandoverRelayOptions {
  orm: Orm;
  client: Client;
  handovers: Handovers;
  logger: Logger;
  pollMs: number;
}

export class HandoverRelay {
  private readonly o: HandoverRelayOptions;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private prunedAt = 0;

  constructor(options: HandoverRelayOptions) {
    this.o = options;
    options.handovers.onCommit(() => this.wake());
  }

  /** Polls until close(); the first pass runs at once (rows left by a process that died). */
  start(): void {
    this.wake();
  }

  /** Runs a pass now (or right after the one in progress). */
  wake(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    // Outside any trace: a pass woken by a request's commit is not part of that request (each start continues the
    // trace recorded with its own row).
    this.running = context.with(ROOT_CONTEXT, () => this.loop()).finally(() => {
      this.running = undefined;
      if (this.closed) return;
      if (this.again) {
        this.again = false;
        this.wake();
      } else {
        this.timer = setTimeout(() => this.wake(), this.o.pollMs);
        this.timer.unref();
      }
    });
  }

  /** Lets a pass in progress finish, then stops. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One pass: batches until none is full. Errors (database down) are logged; the next poll tries again. */
  private async loop(): Promise<void> {
    try {
      while (!this.closed && (await this.batch()) === BATCH);
    } catch (err) {
      this.o.logger.warn({ err: String(err) }, 'hand-over relay pass failed; retrying at the next poll');
    }
  }

  private async batch(): Promise<number> {
    const em = this.o.orm.em.fork();
    return em.transactional(async (tx) => {
      const rows: PendingRow[] = await tx.execute(
        `select id, workflow_id, task_queue, start, attempts, trace_context from workflow_handovers
         where started_at is null and next_attempt_at <= now() order by id limit ${BATCH} for update skip locked`,
      );
      const outcomes = await Promise.all(rows.map((row) => this.startOne(row)));
      for (const [i, row] of rows.entries()) {
        const error = outcomes[i];
        if (error === null) {
          await tx.execute('update workflow_handovers set started_at = now(), attempts = attempts + 1, last_error = null where id = ?', [row.id]);
        } else {
          const backoff = Math.min(MAX_BACKOFF_SECONDS, 2 ** Math.min(row.attempts, 10));
          await tx.execute(
            `update workflow_handovers set attempts = attempts + 1, last_error = ?, next_attempt_at = now() + make_interval(secs => ?) where id = ?`,
            [error.slice(0, 1000), backoff, row.id],
          );
        }
      }
      if (rows.length < BATCH && Date.now() - this.prunedAt > PRUNE_EVERY_MS) {
        this.prunedAt = Date.now();
        await tx.execute(`delete from workflow_handovers where started_at < now() - interval '${KEEP_STARTED}'`);
      }
      return rows.length;
    });
  }

  /** Starts one recorded workflow; null when it is started (or was already), else why not. */
  private async startOne(row: PendingRow): Promise<string | null> {
    const { client, logger } = this.o;
    try {
      // In the trace of the request or activity that recorded the row (docs/decisions.md §12): Temporal's client
      // interceptor carries it into the run.
      await context.with(contextFromCarrier(row.trace_context), () =>
        withSpan(`handover ${row.start.workflowType}`, { kind: SpanKind.PRODUCER, attributes: { 'convene.workflow_id': row.workflow_id, 'convene.handover_attempt': row.attempts + 1 } }, () =>
          startHandover(client, row.task_queue, row.start),
        ),
      );
      return null;
    } catch (err) {
      // A run with this id is closed and may not run again (REJECT_DUPLICATE, or a completed ingestion): the work was
      // done by it. This is how a start relayed twice stays one run.
      if (err instanceof WorkflowExecutionAlreadyStartedError) return null;
      logger.warn({ err: String(err), workflowId: row.workflow_id, attempts: row.attempts + 1 }, 'hand-over not started yet; will retry');
      return err instanceof Error ? err.message : String(err);
    }
  }
}

/**
 * Makes one recorded start (what the relay does with each row): by its workflow id, with its search attributes and
 * summary, within START_DEADLINE_MS. Throws what Temporal throws, WorkflowExecutionAlreadyStartedError included.
 */
export async function startHandover(client: Client, taskQueue: string, s: HandoverStart): Promise<void> {
  const common = {
    taskQueue,
    workflowId: s.workflowId,
    args: s.args,
    typedSearchAttributes: searchAttributesFor(s.subject),
    staticSummary: s.summary,
    ...(s.details ? { staticDetails: s.details } : {}),
    workflowIdReusePolicy: s.reuse ?? 'REJECT_DUPLICATE',
  } as const;
  const signal = s.signal;
  await client.withDeadline(Date.now() + START_DEADLINE_MS, async (): Promise<unknown> =>
    signal
      ? client.workflow.signalWithStart(s.workflowType, { ...common, signal: signal.name, signalArgs: signal.args })
      : client.workflow.start(s.workflowType, { ...common, workflowIdConflictPolicy: s.conflict ?? 'USE_EXISTING' }),
  );
  metrics.workflowStarted(s.workflowType);
}
