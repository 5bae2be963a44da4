// A workflow test's worker as src/worker.ts runs it: the main worker (workflows and every activity) and one
// activity-only worker per transcription provider, on the provider's own task queue (workflows/shared.ts
// transcriptionTaskQueue), where the provider calls of post-meeting and transcription runs are scheduled.
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { createProviderWorkers } from '../../src/worker.ts';

export interface PipelineWorker {
  /** Runs every worker until shutdown(). */
  run(): Promise<void>;
  shutdown(): void;
  /** Runs every worker until `promise` settles, then shuts them down; its result. */
  runUntil<T>(promise: Promise<T>): Promise<T>;
}

/** Provider limits of the tests: the configuration's defaults, unless a test asks for others. */
const DEFAULT_LIMITS = { openai: 4, deepgram: 4 };

export async function createPipelineWorker(
  options: WorkerOptions & { activities: object },
  limits: { openai: number; deepgram: number } = DEFAULT_LIMITS,
): Promise<PipelineWorker> {
  const main = await Worker.create(options);
  const providers = await createProviderWorkers(
    { connection: options.connection!, namespace: options.namespace, taskQueue: options.taskQueue, activities: options.activities },
    limits,
  );
  const all = [main, ...providers];
  return {
    run: async () => {
      await Promise.all(all.map((w) => w.run()));
    },
    shutdown: () => {
      for (const w of all) w.shutdown();
    },
    runUntil: async (promise) => {
      const running = Promise.all(providers.map((w) => w.run()));
      try {
        return await main.runUntil(promise);
      } finally {
        for (const w of providers) w.shutdown();
        await running;
      }
    },
  };
}
