import type { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../config.ts';
import { openDatabase, type Orm } from '../db/orm.ts';
import { keyRotationPolicy, loadSigningKeys, refreshSigningKeys } from '../db/signing-keys.ts';
import type { Logger } from '../logger.ts';
import { AuthService } from '../modules/auth/auth.service.ts';
import { configuredSchedule } from '../modules/deliveries/delivery-schedule.ts';
import { DeliveryService } from '../modules/deliveries/delivery.service.ts';
import { ParticipantWriter } from '../modules/participants/participant-insert.ts';
import { ParticipantService } from '../modules/participants/participant.service.ts';
import { PostMeetingService } from '../modules/post-meeting/post-meeting.service.ts';
import { RecordingNotifications } from '../modules/recordings/recording-notifications.ts';
import { roomRecordingStop } from '../modules/recordings/recording-stop.ts';
import { RecordingService } from '../modules/recordings/recording.service.ts';
import { RoomService } from '../modules/rooms/room.service.ts';
import { TenantService } from '../modules/tenants/tenant.service.ts';
import { TranscriptService } from '../modules/transcripts/transcript.service.ts';
import { createProviderRegistry, type ProviderRegistry } from '../providers/registry.ts';
import { SecretBox } from '../security/secret-box.ts';
import { TokenService } from '../security/tokens.ts';
import type { EmptyRoomTimer } from '../realtime/realtime.ports.ts';
import { TemporalEmptyRoomTimer } from '../temporal/empty-room-timer.ts';
import { PgRoomBus } from '../realtime/pg-bus.ts';
import { presentParticipantIds } from '../realtime/presence.ts';
import { RealtimeEventPublisher } from '../realtime/room-events.ts';
import { RealtimeRoomSessions } from '../realtime/room-sessions.ts';
import { S3ObjectStore, type ObjectStore } from '../storage/object-store.ts';
import { createS3Client } from '../storage/s3-client.ts';
import { createTemporalClient, type TemporalClient } from '../temporal/client.ts';
import { TemporalRecordingOrchestrator } from '../temporal/recording-orchestrator.ts';
import { Handovers } from '../handover/handover.ts';
import { HandoverRelay } from '../handover/relay.ts';
import { createHttpUpstreamAdapter } from '../upstream/http-upstream-adapter.ts';
import type { MediaProvider } from '../upstream/media-provider.ts';
import { metrics } from '../metrics/metrics.ts';
import { readinessChecks } from './readiness-checks.ts';
import type { AppDeps } from '../app.ts';

/** What both roles need: storage, the Temporal client, the room event bus, and the tenant and room rules. */
export interface Core {
  config: Config;
  logger: Logger;
  orm: Orm;
  s3: S3Client;
  store: ObjectStore;
  provider: MediaProvider;
  temporal: TemporalClient;
  /** Room events across processes (LISTEN/NOTIFY); the api role also calls roomBus.listen(). */
  roomBus: PgRoomBus;
  emptyRoomTimer: EmptyRoomTimer;
  events: RealtimeEventPublisher;
  /** Presence cleanup and socket notices that commit with a service's change. */
  sessions: RealtimeRoomSessions;
  orchestrator: TemporalRecordingOrchestrator;
  /** Workflow starts recorded with the change that implies them (docs/decisions.md §15); relayed by this process too. */
  handovers: Handovers;
  /** SECRETS_KEY: tenant secrets and the notification links kept with recordings, sealed at rest. */
  secretBox: SecretBox;
  tenants: TenantService;
  rooms: RoomService;
  /** Transcription providers and AI analysers (docs/decisions.md §9), from the operator's settings. */
  providers: ProviderRegistry;
  close(): Promise<void>;
}

export interface Services extends AppDeps, Core {}

/**
 * The object graph shared by the api and worker roles, wired once. Events a worker produces (a room ended by its
 * timer, a recording stopped at its duration limit) reach the API processes' sockets through the same bus.
 */
export async function createCore(config: Config, logger: Logger, databaseUrl: string, options: { busPoolSize?: number } = {}): Promise<Core> {
  const secretBox = new SecretBox(config.secretsKey);
  const orm: Orm = await openDatabase(databaseUrl, logger, secretBox);
  // Connections lent out and never given back show here (docs/metrics.md, convene_db_pool_connections).
  metrics.watchPool('orm', await orm.em.getConnection().getNativeClient());
  const s3 = createS3Client(config.s3);
  const store = new S3ObjectStore(s3, config.s3);
  const provider = createHttpUpstreamAdapter({ baseUrl: config.upstream.apiUrl, apiKey: config.upstream.apiKey });
  const roomBus = new PgRoomBus({
    databaseUrl,
    logger,
    resumeWindowSeconds: config.ws.resumeWindowSeconds,
    listenCheckIntervalSeconds: config.ws.listenCheckIntervalSeconds,
    ...(options.busPoolSize ? { poolSize: options.busPoolSize } : {}),
  });
  const temporal = createTemporalClient(config.temporal);
  const taskQueue = config.temporal.taskQueue;
  const emptyRoomTimer = new TemporalEmptyRoomTimer({ client: temporal.client, taskQueue, logger });
  const events = new RealtimeEventPublisher({ bus: roomBus, logger });
  const orchestrator = new TemporalRecordingOrchestrator(temporal.client);
  const handovers = new Handovers({ taskQueue, outsideStepTimings: config.outsideStepTimings });
  const providers = createProviderRegistry(config);
  // Every process relays what any process recorded: a process that died between commit and start loses nothing.
  const relay = new HandoverRelay({ orm, client: temporal.client, handovers, logger, pollMs: config.handoverPollMs });
  relay.start();
  const sessions = new RealtimeRoomSessions({ bus: roomBus, timer: emptyRoomTimer, staleAfterSeconds: config.ws.presenceStaleAfterSeconds });
  // Ending or deleting a room (or its tenant) stops its recording (docs/decisions.md §6) through a hand-over recorded in
  // that transaction.
  const recordingStop = roomRecordingStop(handovers);
  const tenants = new TenantService({
    secretBox,
    production: config.nodeEnv === 'production',
    handovers,
    sessions,
    providers,
    recordingStop,
  });
  const rooms = new RoomService({ tenants, sessions, handovers, recordingStop });
  return {
    config,
    logger,
    orm,
    s3,
    store,
    provider,
    temporal,
    roomBus,
    emptyRoomTimer,
    events,
    sessions,
    orchestrator,
    handovers,
    secretBox,
    tenants,
    rooms,
    providers,
    close: () =>
      closeInOrder(logger, [
        ['handover relay', () => relay.close()],
        ['empty-room timer', () => emptyRoomTimer.close()],
        ['Temporal client', () => temporal.close()],
        ['S3 client', () => s3.destroy()],
        ['room bus', () => roomBus.close()],
        ['database pool', () => orm.close()],
      ]),
  };
}

/** The api role's services: the core plus tokens, participants, recordings and the readiness checks. */
export async function createServices(config: Config, logger: Logger, databaseUrl: string): Promise<Services> {
  const core = await createCore(config, logger, databaseUrl);
  const { orm, s3, tenants, rooms, events, sessions, provider, store, orchestrator, providers, handovers, secretBox, logger: log } = core;
  const keyPolicy = keyRotationPolicy(config.tokens);
  const keys = await loadSigningKeys(orm.em.fork(), secretBox, keyPolicy);
  const tokens = new TokenService({ keys, issuer: config.tokens.issuer, audience: config.tokens.audience });
  // A rotation reaches this instance when it commits (a NOTIFY), or within one periodic reload (src/db/signing-keys.ts).
  const stopKeyRefresh = refreshSigningKeys({ orm, databaseUrl, box: secretBox, tokens, policy: keyPolicy, logger });
  const auth = new AuthService(tokens, config.tokens);
  const recordings = new RecordingService({
    provider,
    store,
    orchestrator,
    handovers,
    ingestRetryWindowSeconds: config.ingestRetryWindowSeconds,
    events,
    tenants,
    logger,
  });
  const recordingNotifications = new RecordingNotifications({
    handovers,
    ingestRetryWindowSeconds: config.ingestRetryWindowSeconds,
    secretBox,
    orchestrator,
    logger,
  });
  const postMeeting = new PostMeetingService({ recordings, handovers });
  const writer = new ParticipantWriter({ databaseUrl, logger });
  const participants = new ParticipantService({
    writer,
    tenants,
    rooms,
    auth,
    sessions,
    handovers,
    presentIn: (em, roomId) => presentParticipantIds(em, roomId, config.ws.presenceStaleAfterSeconds),
    isRecording: (em, roomId) => recordings.isRecording(em, roomId),
  });
  const transcripts = new TranscriptService({
    providers,
    handovers,
    tenants,
    logger: log,
  });
  const deliveries = new DeliveryService({
    tenants,
    handovers,
    retryDelaysSeconds: configuredSchedule(config),
    logger,
  });
  return {
    ...core,
    tokens,
    auth,
    participants,
    recordings,
    recordingNotifications,
    postMeeting,
    transcripts,
    deliveries,
    readiness: readinessChecks({ config, orm, s3 }),
    async close() {
      await closeInOrder(logger, [
        ['signing-key refresh', stopKeyRefresh],
        ['participant writer pool', () => writer.close()],
      ]);
      await core.close();
    },
  };
}

/** How long a close step may run before it is logged by name, while it still runs. */
const SLOW_CLOSE_STEP_MS = 5000;

/**
 * Runs the close steps in order. A step still running after SLOW_CLOSE_STEP_MS is logged (a warning naming it) while
 * it runs, so a shutdown that hangs says where: a pool whose client is never released, a goodbye that never comes.
 */
async function closeInOrder(logger: Logger, steps: Array<[name: string, step: () => unknown]>): Promise<void> {
  for (const [name, step] of steps) {
    const slow = setTimeout(() => logger.warn({ step: name }, `closing: ${name} still running after ${SLOW_CLOSE_STEP_MS / 1000} s`), SLOW_CLOSE_STEP_MS);
    slow.unref();
    try {
      await step();
    } finally {
      clearTimeout(slow);
    }
  }
}
