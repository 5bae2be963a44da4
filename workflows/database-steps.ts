// The quick database steps of the pipeline (mark ready, plan, create the transcript row, complete, mark failed, read
// the retention deadline) run as local activities: in the worker that runs the workflow task, inside that task, with
// their result recorded as a marker. A regular activity costs two more workflow tasks and three more history events
// per step (scheduled, started, completed, then a task to go on); in a burst of recordings stopping together those
// tasks, queued behind every other recording's, were where the time went (bench/burst.ts, BENCHMARKS.md "Burst").
// Only single-statement database work belongs here: transfers, provider and AI calls, webhook POSTs stay activities
// (they are long, heartbeat, or are worth seeing as pending in the UI).
//
// Workflows started before this change hold activity events for these steps: patched() keeps their replay on the
// activity path (it answers false while replaying a history without the marker), and new runs record the marker.
import { patched, proxyActivities, proxyLocalActivities, type ActivityInterfaceFor, type ActivityOptions } from '@temporalio/workflow';

/** The patch id (a marker in the history of every run that took the local path). Keep it while older runs may exist. */
export const LOCAL_DATABASE_STEPS = 'local-database-steps';

/**
 * Retries of a step that keeps failing (the database away) wait in a durable timer once the backoff passes this, rather
 * than inside one long-running workflow task: an outage costs a timer per attempt, not a worker slot for its duration.
 */
const LOCAL_RETRY_THRESHOLD = '5 seconds';

/** `options` (workflows/shared.ts databaseStep(), plus a summary) for the steps of `A`, local on the patched path. */
export function quickDatabaseSteps<A extends object>(options: ActivityOptions): ActivityInterfaceFor<A> {
  const activities = proxyActivities<A>(options);
  // Same names and calls; the local proxy's executeWithOptions takes local activity options, of which the call sites
  // use only what both kinds share (summary, timeouts).
  const local = proxyLocalActivities<A>({ ...options, localRetryThreshold: LOCAL_RETRY_THRESHOLD }) as unknown as ActivityInterfaceFor<A>;
  // The choice is made when a step is called (patched() needs the workflow's context), not when the module loads.
  return new Proxy({} as ActivityInterfaceFor<A>, {
    get: (_, name) =>
      typeof name === 'string' ? (patched(LOCAL_DATABASE_STEPS) ? local : activities)[name as keyof ActivityInterfaceFor<A>] : undefined,
  });
}
