// Every Prometheus metric of Convene (docs/decisions.md §12), in one registry per process, and the small API the rest of the
// code calls. Labels are bounded on purpose: operations come from the spec's operationIds (never a raw path),
// statuses are HTTP codes, event names and workflow kinds come from the contract and the code, outcomes and providers
// from short fixed lists. A label fed from user input would let one client grow the registry without bound.
//
// Where each one is fed:
//   convene_http_request_duration_seconds  src/metrics/http-metrics.ts (middleware in src/app.ts), API process
//   convene_websockets_open                src/realtime/gateway.ts, API process
//   convene_room_events_total              src/realtime/pg-bus.ts (the one place room events are produced)
//   convene_workflow_starts_total          the hand-over relay (src/handover/relay.ts: every recorded start, in the api
//                                          or worker process that relayed it), the empty-room timer's presence signals
//   convene_webhook_attempts_total         src/activities/deliveries.ts (attemptOutcome in delivery-sender.ts), worker
//   convene_transcription_duration_seconds src/activities/transcription.ts, worker
//   convene_ai_duration_seconds            src/activities/post-meeting.ts (summarisePostMeeting), worker
//   convene_db_pool_connections            read from the pools when scraped; watched where each is made:
//                                          src/services/container.ts (orm), participant-insert.ts, pg-bus.ts
// plus prom-client's default process metrics (CPU, memory, event-loop lag, GC) under the `convene_` prefix.
// docs/metrics.md is the operator's view of the same list.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** How one attempt to deliver an outgoing webhook ended (the AsyncAPI/OpenAPI attempt `status`, split by cause). */
export type WebhookAttemptOutcome = 'succeeded' | 'http_error' | 'timeout' | 'network_error';
/** The PostgreSQL pools of a process: MikroORM's, and the two made with src/db/pool.ts. */
export type PoolName = 'orm' | 'participant-writer' | 'room-bus';
/** What a `pg.Pool` says of itself. */
export interface PoolCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
  readonly ending: boolean;
}
/** What looking for speakers by voice came to (src/providers/voice-labels.ts withVoiceLabels). */
export type VoiceLabelOutcome = 'labelled' | 'provider_labelled' | 'one_voice' | 'failed';

const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'convene_' });

const httpDuration = new Histogram({
  name: 'convene_http_request_duration_seconds',
  help: 'HTTP request latency by spec operationId (`unmatched` outside the contract) and response status.',
  labelNames: ['operation', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

const websocketsOpen = new Gauge({
  name: 'convene_websockets_open',
  help: 'Room WebSockets currently open on this API instance.',
  registers: [registry],
});

const roomEvents = new Counter({
  name: 'convene_room_events_total',
  help: 'Room events produced (one per event, whatever the number of receivers), by AsyncAPI event name.',
  labelNames: ['event'] as const,
  registers: [registry],
});

const workflowStarts = new Counter({
  name: 'convene_workflow_starts_total',
  help: 'Temporal workflow starts requested by this process (signal-with-start included), by workflow type.',
  labelNames: ['kind'] as const,
  registers: [registry],
});

const webhookAttempts = new Counter({
  name: 'convene_webhook_attempts_total',
  help: 'Outgoing webhook delivery attempts, by outcome (succeeded, http_error, timeout, network_error).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const voiceLabels = new Counter({
  name: 'convene_voice_labels_total',
  help: 'Transcripts whose speakers were looked for by voice, by outcome (labelled, provider_labelled, one_voice, failed).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** The pools being watched; one that is closing leaves at the next scrape. */
const pools = new Map<PoolCounts, PoolName>();

const dbPoolConnections = new Gauge({
  name: 'convene_db_pool_connections',
  help: 'PostgreSQL connections of this process by pool (orm, participant-writer, room-bus) and state: lent (in use), idle, waiting (callers queued for one).',
  labelNames: ['pool', 'state'] as const,
  registers: [registry],
  // Read when scraped rather than kept up to date: the pools count for themselves.
  // Pools of one name (several services in one test process) add up.
  collect() {
    this.reset();
    for (const [counts, pool] of pools) {
      if (counts.ending) {
        pools.delete(counts);
        continue;
      }
      this.inc({ pool, state: 'lent' }, counts.totalCount - counts.idleCount);
      this.inc({ pool, state: 'idle' }, counts.idleCount);
      this.inc({ pool, state: 'waiting' }, counts.waitingCount);
    }
  },
});

// Transcription and AI calls take seconds to many minutes.
const SLOW_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1200, 3600];

const transcriptionDuration = new Histogram({
  name: 'convene_transcription_duration_seconds',
  help: 'Time a transcription provider took for one recording, by provider and result (ok / error).',
  labelNames: ['provider', 'result'] as const,
  buckets: SLOW_BUCKETS,
  registers: [registry],
});

const aiDuration = new Histogram({
  name: 'convene_ai_duration_seconds',
  help: 'Time one AI post-processing call took, by provider and result (ok / error).',
  labelNames: ['provider', 'result'] as const,
  buckets: SLOW_BUCKETS,
  registers: [registry],
});

/** Provider ids are configuration, not user input; anything odd is folded so a bug cannot grow the registry. */
const providerLabel = (provider: string) => (/^[a-z0-9_-]{1,50}$/i.test(provider) ? provider : 'other');

export const metrics = {
  registry,

  /** One answered HTTP request. `operation` is the spec's operationId, or `unmatched`. */
  observeHttpRequest(operation: string, status: number, seconds: number): void {
    httpDuration.observe({ operation, status: String(status) }, seconds);
  },

  websocketOpened(): void {
    websocketsOpen.inc();
  },

  websocketClosed(): void {
    websocketsOpen.dec();
  },

  /** A room event (`participant.joined`, `chat.message`, …) was committed for its room. */
  roomEvent(event: string): void {
    roomEvents.inc({ event });
  },

  /** A workflow start was requested; `kind` is the workflow type name (e.g. `recordingIngestWorkflow`). */
  workflowStarted(kind: string): void {
    workflowStarts.inc({ kind });
  },

  /** One outgoing webhook attempt ended. */
  webhookAttempt(outcome: WebhookAttemptOutcome): void {
    webhookAttempts.inc({ outcome });
  },

  /** A transcription provider finished (ok) or failed (not ok) after `seconds`. */
  observeTranscription(provider: string, seconds: number, ok: boolean): void {
    transcriptionDuration.observe({ provider: providerLabel(provider), result: ok ? 'ok' : 'error' }, seconds);
  },

  /** A transcript's speakers were looked for by voice (src/providers/voice-labels.ts). */
  voiceLabels(outcome: VoiceLabelOutcome): void {
    voiceLabels.inc({ outcome });
  },

  /** An AI post-processing call finished (ok) or failed (not ok) after `seconds`. */
  observeAi(provider: string, seconds: number, ok: boolean): void {
    aiDuration.observe({ provider: providerLabel(provider), result: ok ? 'ok' : 'error' }, seconds);
  },

  /** Reports a PostgreSQL pool's connections with every scrape until the pool closes. */
  watchPool(name: PoolName, pool: PoolCounts): void {
    pools.set(pool, name);
  },

  /** Times `work` and records it with `observe` whether it succeeds or throws. */
  async time<T>(observe: (seconds: number, ok: boolean) => void, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let ok = false;
    try {
      const result = await work();
      ok = true;
      return result;
    } finally {
      observe((performance.now() - started) / 1000, ok);
    }
  },
};
