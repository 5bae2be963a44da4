import { NativeConnection, Worker } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { createActivities } from './activities/index.ts';
import type { Config } from './config.ts';
import { openDatabase } from './db/orm.ts';
import { LocalEventBus } from './events/domain-events.ts';
import type { Logger } from './logger.ts';
import { S3ObjectStore } from './storage/object-store.ts';
import { createS3Client, ensureBuckets } from './storage/s3-client.ts';
import { createHttpUpstreamAdapter } from './upstream/http-upstream-adapter.ts';

/** From src/ (dev, tests) the workflows are .ts; from dist/ they are compiled .js. */
export const WORKFLOWS_PATH = fileURLToPath(
  new URL(`../workflows/index.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url),
);

/**
 * The Temporal worker role: polls the task queue and runs workflows/ (bundled by the SDK) and the activities
 * (src/activities/, built by createActivities from this process's own database, S3 and media-provider clients).
 */
export async function runWorker(config: Config, logger: Logger, databaseUrl: string): Promise<() => Promise<void>> {
  const orm = await openDatabase(databaseUrl, logger);
  const s3 = createS3Client(config.s3);
  await ensureBuckets(s3, config.s3);
  const activities = createActivities({
    orm,
    store: new S3ObjectStore(s3, config.s3),
    provider: createHttpUpstreamAdapter({ baseUrl: config.upstream.apiUrl, apiKey: config.upstream.apiKey }),
    // TODO(realtime issue): a cross-process publisher, so recording.stopped from the auto-stop timer reaches the
    // WebSocket layer in the API processes. In-process, nobody in the worker listens.
    events: new LocalEventBus(),
    logger,
  });
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    workflowsPath: WORKFLOWS_PATH,
    activities,
  });
  const running = worker.run();
  logger.info({ taskQueue: config.temporal.taskQueue, address: config.temporal.address }, 'Convene worker polling');
  return async () => {
    worker.shutdown(); // finishes the tasks in hand, then run() resolves
    await running;
    await connection.close();
    s3.destroy();
    await orm.close();
  };
}
