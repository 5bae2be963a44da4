import { NativeConnection, Worker } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';

/**
 * The Temporal worker role: polls the task queue and runs workflows/ (bundled by the SDK) and the activities.
 * Recording ingestion, post-meeting processing, timers and webhook retries register here as their issues land.
 */
export async function runWorker(config: Config, logger: Logger): Promise<() => Promise<void>> {
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    // From src/ (dev, tests) the workflows are .ts; from dist/ they are compiled .js.
    workflowsPath: fileURLToPath(new URL(`../workflows/index.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url)),
    activities: {},
  });
  const running = worker.run();
  logger.info({ taskQueue: config.temporal.taskQueue, address: config.temporal.address }, 'Convene worker polling');
  return async () => {
    worker.shutdown(); // finishes the tasks in hand, then run() resolves
    await running;
    await connection.close();
  };
}
