import type { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../config.ts';
import { openDatabase, type Orm } from '../db/orm.ts';
import { loadSigningKeys } from '../db/signing-keys.ts';
import type { Logger } from '../logger.ts';
import { AuthService } from '../modules/auth/auth.service.ts';
import { ParticipantService } from '../modules/participants/participant.service.ts';
import { TemporalRecordingOrchestrator } from '../modules/recordings/recording-orchestrator.ts';
import { stopRecordingsOfEndedRooms } from '../modules/recordings/recording-stop.ts';
import { RecordingService } from '../modules/recordings/recording.service.ts';
import { RoomService } from '../modules/rooms/room.service.ts';
import { TemporalTenantPurger } from '../modules/tenants/tenant-purge.ts';
import { TenantService } from '../modules/tenants/tenant.service.ts';
import { SecretBox } from '../security/secret-box.ts';
import { TokenService } from '../security/tokens.ts';
import { TemporalEmptyRoomTimer, type EmptyRoomTimer } from '../realtime/empty-room-timer.ts';
import { PgRoomBus } from '../realtime/pg-bus.ts';
import { presentParticipantIds } from '../realtime/presence.ts';
import { RealtimeEventPublisher } from '../realtime/room-events.ts';
import { S3ObjectStore, type ObjectStore } from '../storage/object-store.ts';
import { createS3Client } from '../storage/s3-client.ts';
import { createTemporalClient, type TemporalClient } from '../temporal/client.ts';
import { createHttpUpstreamAdapter } from '../upstream/http-upstream-adapter.ts';
import type { MediaProvider } from '../upstream/media-provider.ts';
import { readinessChecks } from './readiness.ts';
import type { AppDeps } from '../app.ts';

export interface Services extends AppDeps {
  s3: S3Client;
  events: RealtimeEventPublisher;
  /** Room events across API instances (LISTEN/NOTIFY); the api role calls roomBus.listen(). */
  roomBus: PgRoomBus;
  emptyRoomTimer: EmptyRoomTimer;
  store: ObjectStore;
  provider: MediaProvider;
  temporal: TemporalClient;
  close(): Promise<void>;
}

/** Builds every long-lived service from the config: the one place where the object graph is wired. */
export async function createServices(config: Config, logger: Logger, databaseUrl: string): Promise<Services> {
  const orm: Orm = await openDatabase(databaseUrl, logger);
  const secretBox = new SecretBox(config.secretsKey);
  const keys = await loadSigningKeys(orm.em.fork(), secretBox);
  const tokens = new TokenService({ keys, issuer: config.tokens.issuer, audience: config.tokens.audience });

  const auth = new AuthService(tokens, config.tokens);
  const s3 = createS3Client(config.s3);
  const roomBus = new PgRoomBus({ databaseUrl, logger });
  const temporal = createTemporalClient(config.temporal);
  const tenants = new TenantService({ secretBox, production: config.nodeEnv === 'production', purger: new TemporalTenantPurger(temporal.client, config.temporal.taskQueue) });
  const emptyRoomTimer = new TemporalEmptyRoomTimer({ client: temporal.client, taskQueue: config.temporal.taskQueue, logger });
  const events = new RealtimeEventPublisher({ bus: roomBus, timer: emptyRoomTimer, logger });
  const rooms = new RoomService({ tenants, events });
  const participants = new ParticipantService({
    tenants,
    rooms,
    auth,
    events,
    presentIn: presentParticipantIds,
    // `recordings` is built below; this runs only on requests, after it exists.
    isRecording: (em, roomId) => recordings.isRecording(em, roomId),
  });
  const store = new S3ObjectStore(s3, config.s3);
  const provider = createHttpUpstreamAdapter({ baseUrl: config.upstream.apiUrl, apiKey: config.upstream.apiKey });
  const orchestrator = new TemporalRecordingOrchestrator(temporal.client, config.temporal.taskQueue);
  const recordings = new RecordingService({ provider, store, orchestrator, events, tenants, logger });
  // Ending or deleting a room stops its recording (DECISIONS §6).
  stopRecordingsOfEndedRooms(events, { orm, provider, events, logger, stopped: (id) => orchestrator.recordingStopped(id) });
  return {
    config,
    logger,
    orm,
    tokens,
    tenants,
    auth,
    rooms,
    participants,
    recordings,
    events,
    store,
    provider,
    temporal,
    roomBus,
    emptyRoomTimer,
    s3,
    readiness: readinessChecks({ config, orm, s3 }),
    async close() {
      await emptyRoomTimer.close();
      await temporal.close();
      s3.destroy();
      await roomBus.close();
      await orm.close();
    },
  };
}
