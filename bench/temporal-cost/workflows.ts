// The shapes bench/temporal-cost.ts measures: the building blocks of the recording pipeline, with no work inside.
import { executeChild, proxyActivities, sleep, startChild } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '30 seconds' });

/** Start, one workflow task, complete. */
export async function bare(): Promise<void> {}

/** `n` activities one after another (each: a schedule, a task, a workflow task for its result). */
export async function activities(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await noop();
}

/** A child run to its end (post-meeting's transcription child before the inline patch). */
export async function awaitedChild(id: string): Promise<void> {
  await executeChild(bare, { workflowId: `${id}-child` });
}

/** A child started and left running (ingestion's post-meeting and retention children). */
export async function abandonedChild(id: string): Promise<void> {
  await startChild(bare, { workflowId: `${id}-child`, parentClosePolicy: 'ABANDON' });
}

/** A timer that fires (a delivery's retry, a retention's sleep). */
export async function timer(): Promise<void> {
  await sleep(10);
}
