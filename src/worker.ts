import { NativeConnection, Worker } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { createActivities } from './activities/index.ts';
import { createRoomActivities } from './activities/rooms.ts';
import type { Config } from './config.ts';
import { openDatabase } from './db/orm.ts';
import type { Logger } from './logger.ts';
import { TemporalRecordingOrchestrator } from './modules/recordings/recording-orchestrator.ts';
import { stopRecordingsOfEndedRooms } from './modules/recordings/recording-stop.ts';
import { RoomService } from './modules/rooms/room.service.ts';
import { TemporalTenantPurger } from './modules/tenants/tenant-purge.ts';
import { TenantService } from './modules/tenants/tenant.service.ts';
import { TemporalEmptyRoomTimer } from './realtime/empty-room-timer.ts';
import { PgRoomBus } from './realtime/pg-bus.ts';
import { RealtimeEventPublisher } from './realtime/room-events.ts';
import { SecretBox } from './security/secret-box.ts';
import { createTemporalClient } from './temporal/client.ts';
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
  // Events produced here (a room ended by its empty-room timer, a recording stopped by its duration limit) reach the
  // sockets in the API processes through the same PostgreSQL bus; the worker only publishes, it never listens.
  const roomBus = new PgRoomBus({ databaseUrl, logger, poolSize: 2 });
  const temporal = createTemporalClient(config.temporal);
  const emptyRoomTimer = new TemporalEmptyRoomTimer({ client: temporal.client, taskQueue: config.temporal.taskQueue, logger });
  const events = new RealtimeEventPublisher({ bus: roomBus, timer: emptyRoomTimer, logger });
  const tenants = new TenantService({
    secretBox: new SecretBox(config.secretsKey),
    production: config.nodeEnv === 'production',
    purger: new TemporalTenantPurger(temporal.client, config.temporal.taskQueue),
  });
  const provider = createHttpUpstreamAdapter({ baseUrl: config.upstream.apiUrl, apiKey: config.upstream.apiKey });
  const activities = createActivities({ orm, store: new S3ObjectStore(s3, config.s3), provider, events, logger });
  // A room the empty-room timer ends here stops its recording too (DECISIONS §6), as API-ended rooms do there.
  const recordingTimers = new TemporalRecordingOrchestrator(temporal.client, config.temporal.taskQueue);
  stopRecordingsOfEndedRooms(events, { orm, provider, events, logger, stopped: (id) => recordingTimers.recordingStopped(id) });
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    workflowsPath: WORKFLOWS_PATH,
    activities: { ...activities, ...createRoomActivities({ orm, tenants, rooms: new RoomService({ tenants, events }) }) },
  });
  const running = worker.run();
  logger.info({ taskQueue: config.temporal.taskQueue, address: config.temporal.address }, 'Convene worker polling');
  return async () => {
    worker.shutdown(); // finishes the tasks in hand, then run() resolves
    await running;
    await connection.close();
    s3.destroy();
    await emptyRoomTimer.close();
    await temporal.close();
    await roomBus.close();
    await orm.close();
  };
}
