// Every setting of Convene: its environment variable, its default, and why it exists. Parsed and validated once at
// start-up; a variable that is set but invalid stops start-up with a message that names it.

import { compileTrustProxy } from './security/trust-proxy.ts';
import { parseSecretsKeys } from './security/secret-box.ts';
import type { OutsideStepTimings } from '../workflows/shared.ts';

/** Default task queue (TEMPORAL_TASK_QUEUE overrides it; the worker and the API read the same setting). */
export const DEFAULT_TASK_QUEUE = 'convene';

export type NodeEnv = 'development' | 'test' | 'production';

export interface Config {
  nodeEnv: NodeEnv;
  port: number;
  publicBaseUrl: string;
  logLevel: string;
  /** Required (src/main.ts says so when it is unset); `npm run dev` and `node dev/main.ts` set it in development. */
  databaseUrl: string | undefined;
  temporal: { address: string; namespace: string; taskQueue: string };
  /** The worker's Temporal options (src/worker.ts); docs/scaling.md says where to start from. */
  worker: WorkerConfig;
  s3: {
    endpoint: string;
    region: string;
    bucket: string;
    archiveBucket: string;
    accessKeyId: string;
    secretAccessKey: string;
  };
  /** Operator credential; unset means the admin-only calls answer 403. */
  adminApiKey: string | undefined;
  upstream: { apiUrl: string; apiKey: string | undefined; webhookSecret: string };
  /**
   * Keys for secrets at rest (AES-256-GCM): `<id>:<key>[,<id>:<key>…]`, newest first, each key 32 bytes base64 or hex;
   * a bare key has the id `k0` (src/security/secret-box.ts, docs/security.md "Sealing keys").
   */
  secretsKey: string;
  /** Outgoing webhook retry schedule, seconds between attempts (first is the initial delay). */
  webhookRetryDelays: number[];
  /** How long an outgoing webhook attempt waits for the receiver's whole answer (docs/decisions.md §10: 30 s). */
  webhookTimeoutMs: number;
  /** Outside production, recording downloads may reach loopback addresses (docs/decisions.md §7, src/security/ssrf-guard.ts). */
  ssrfAllowLoopback: boolean;
  /** How long ingestion retries transient upstream/storage failures before the recording fails, seconds (docs/decisions.md §7). */
  ingestRetryWindowSeconds: number;
  /**
   * How often each process looks for recorded hand-overs (workflow starts) still to relay to Temporal, in ms
   * (docs/decisions.md §15). The common path does not wait for it: a committing request or activity wakes the relay at once.
   */
  handoverPollMs: number;
  /**
   * How long the transcription and AI steps of post-meeting processing retry transient provider failures (5xx, 429,
   * timeouts, connection errors) before the step is recorded as failed, seconds (docs/decisions.md §9; backoff capped at 5 min).
   */
  postMeetingRetryWindowSeconds: number;
  /**
   * SHORT_OUTSIDE_STEP_TIMINGS (NODE_ENV=test only): the shorter heartbeat timeout and retry delays every run handed
   * over from this process gets for its steps that call a service outside the database (workflows/shared.ts
   * OutsideStepTimings); undefined everywhere else, so runs get the workflows' own.
   */
  outsideStepTimings: OutsideStepTimings | undefined;
  wsOriginPatterns: string[];
  rateLimitPerMinute: number;
  /**
   * Failed credentials and public token calls allowed per client address and minute, before authentication
   * (docs/decisions.md §14; src/http/address-limit.ts). Loopback is not exempt.
   */
  authFailureLimitPerMinute: number;
  /**
   * Which proxies in front of the API are trusted to report the client's address (`X-Forwarded-For`): unset, none (the
   * socket's peer is the client); a number of hops; or a comma list of addresses, CIDR ranges, `loopback`,
   * `linklocal`, `uniquelocal` (src/security/trust-proxy.ts).
   */
  trustProxy: string | undefined;
  /** The HTTP server's limits (src/http/server.ts): slow or oversized requests are cut off. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; writeTimeoutMs: number; maxHeadersCount: number };
  /**
   * WebSocket caps (docs/decisions.md §11): sockets per participant (the oldest is replaced) and upgrades per address; and
   * how long a room's events are kept for clients that resume (at most its last 1,000).
   */
  ws: {
    maxSocketsPerParticipant: number;
    upgradesPerAddressPerMinute: number;
    resumeWindowSeconds: number;
    /**
     * After how long without a heartbeat a socket's presence row belongs to a dead instance, seconds
     * (src/realtime/presence.ts): its participant then leaves. Each instance refreshes its rows every third of it.
     */
    presenceStaleAfterSeconds: number;
    /**
     * How often the room bus checks that its LISTEN connection still delivers, seconds (src/realtime/listen-check.ts);
     * a check not back within twice this counts as a lost connection.
     */
    listenCheckIntervalSeconds: number;
  };
  tokens: { issuer: string; audience: string; tenantAccessTtl: number; participantTtl: number; refreshTtl: number };
  /** Validate every response against spec/openapi.yaml (on in tests; costs time in production). */
  validateResponses: boolean;
  /**
   * `GET /metrics` (docs/decisions.md §12): open while `token` is unset, else `Authorization: Bearer <token>` is required.
   * The worker serves the same endpoint on `workerPort` (0: not at all), since its activities feed some metrics.
   */
  metrics: { token: string | undefined; workerPort: number };
  /**
   * Traces (docs/decisions.md §12): exported over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `…_TRACES_ENDPOINT`)
   * is set; unset, no SDK runs. The exporter reads the rest of the standard variables itself (URL, headers, timeout).
   */
  tracing: { enabled: boolean; protocol: 'http/protobuf' | 'http/json' };
  /** Transcription providers and AI analysers (docs/decisions.md §9); src/providers/registry.ts builds the adapters. */
  providers: ProvidersConfig;
}

/**
 * Slots, pollers and the sticky cache of the worker role. Defaults are the Temporal SDK's own: bench/burst.ts found
 * none that did better on its machine (docs/scaling.md, "Worker settings", says what to start from and when to move).
 */
export interface WorkerConfig {
  /** Workflow tasks run at once (maxConcurrentWorkflowTaskExecutions). */
  maxConcurrentWorkflowTasks: number;
  /** Activities run at once (maxConcurrentActivityTaskExecutions); each upload holds up to 15 MiB of part buffers. */
  maxConcurrentActivities: number;
  /** Long polls for workflow tasks (maxConcurrentWorkflowTaskPolls); at most maxConcurrentWorkflowTasks. */
  workflowTaskPollers: number;
  /** Long polls for activity tasks (maxConcurrentActivityTaskPolls); at most maxConcurrentActivities. */
  activityTaskPollers: number;
  /** Workflows kept in memory between their tasks (maxCachedWorkflows); undefined: the SDK's, from the heap size. */
  maxCachedWorkflows: number | undefined;
  /** How long a task waits on this worker's sticky queue before any worker may take it (stickyQueueScheduleToStartTimeout). */
  stickyScheduleToStartTimeoutMs: number;
  /**
   * `host:port` of the SDK's own Prometheus exporter (`temporal_*`: schedule-to-start latencies, slots, sticky cache);
   * unset: off. The SDK serves it itself, without METRICS_TOKEN: bind it where only the scraper reaches it.
   */
  sdkMetricsAddress: string | undefined;
  /**
   * A file of workflows/ bundled beforehand (src/temporal/workflow-bundle.ts), used instead of bundling at start (a
   * few seconds of CPU per worker); unset: the worker bundles workflows/ itself, as it does anyway with tracing on.
   */
  workflowBundlePath: string | undefined;
}

export interface TranscriptionVendorConfig {
  /** `{base}/audio/transcriptions` (openai) or `{base}/v1/listen` (deepgram). */
  baseUrl: string;
  /** Operator key; a tenant's own key replaces it for that tenant. */
  apiKey: string | undefined;
  model: string;
  /** Requests in flight per worker process (self-hosted servers take one at a time). */
  maxConcurrency: number;
  /** Largest upload; a PCM WAV over it is split, any other format fails. */
  maxUploadBytes: number;
  /** Per request (per segment of a split file). */
  timeoutMs: number;
}

export interface ProvidersConfig {
  openai: TranscriptionVendorConfig;
  deepgram: TranscriptionVendorConfig;
  /** `openai` or `deepgram`: the provider used when a request names none. */
  defaultTranscription: 'openai' | 'deepgram';
  ai: {
    defaultProvider: 'builtin' | 'openai-compatible';
    /** `{base}/chat/completions`. */
    baseUrl: string;
    apiKey: string | undefined;
    /** `<vendor>/<model>` (docs/decisions.md §9). */
    model: string;
    /** Time limit of one request with an empty prompt; the prompt adds `timeoutPer1kTokensMs` per 1,000 tokens. */
    timeoutMs: number;
    /** Added to a request's time limit per 1,000 prompt tokens (a server on CPU reads ~60 tokens/s). */
    timeoutPer1kTokensMs: number;
    /** The model's context window in tokens: a transcript that does not fit is analysed in parts and merged. */
    contextTokens: number;
  };
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

// Used only outside production so `npm run dev`/tests work without ceremony; production refuses to start without one.
const DEVELOPMENT_SECRETS_KEY = Buffer.alloc(32, 'convene-development-only-key!!!').toString('base64');

export function loadConfig(env: Env = process.env): Config {
  const read = new Reader(env);
  const nodeEnv = read.oneOf('NODE_ENV', ['development', 'test', 'production'], 'development');
  const port = read.port('PORT', 3000);
  const production = nodeEnv === 'production';
  const config: Config = {
    nodeEnv,
    port,
    publicBaseUrl: read.url('PUBLIC_BASE_URL', `http://127.0.0.1:${port}`),
    logLevel: read.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], nodeEnv === 'test' ? 'silent' : 'info'),
    databaseUrl: read.optionalUrl('DATABASE_URL', ['postgres:', 'postgresql:']),
    temporal: {
      address: read.string('TEMPORAL_ADDRESS', '127.0.0.1:7233'),
      namespace: read.string('TEMPORAL_NAMESPACE', 'default'),
      taskQueue: read.string('TEMPORAL_TASK_QUEUE', DEFAULT_TASK_QUEUE),
    },
    worker: readWorkerConfig(read),
    s3: {
      endpoint: read.url('S3_ENDPOINT', 'http://127.0.0.1:8333'),
      region: read.string('S3_REGION', 'us-east-1'),
      bucket: read.string('S3_BUCKET', 'convene-recordings'),
      archiveBucket: read.string('S3_ARCHIVE_BUCKET', 'convene-archive'),
      accessKeyId: read.string('S3_ACCESS_KEY_ID', 'convene'),
      secretAccessKey: read.string('S3_SECRET_ACCESS_KEY', 'convene-secret'),
    },
    adminApiKey: read.optionalString('ADMIN_API_KEY', 16),
    upstream: {
      apiUrl: read.url('UPSTREAM_API_URL', 'http://127.0.0.1:4010'),
      apiKey: read.optionalString('UPSTREAM_API_KEY', 1),
      webhookSecret: read.string('UPSTREAM_WEBHOOK_SECRET', production ? undefined : 'dev-upstream-webhook-secret'),
    },
    secretsKey: read.secretsKey('SECRETS_KEY', production ? undefined : DEVELOPMENT_SECRETS_KEY),
    webhookRetryDelays: read.durations('WEBHOOK_RETRY_DELAYS', [0, 60, 300, 900, 3600, 14400]),
    webhookTimeoutMs: read.integer('WEBHOOK_TIMEOUT_MS', 30_000, 100, 120_000),
    ssrfAllowLoopback: read.allowLoopback('SSRF_ALLOW_LOOPBACK', production),
    // A minute at least: shorter would fail recordings on a blip. Under NODE_ENV=test 10 s, so the fault test of a
    // store that never comes back waits one short window, not a minute and more (docs/decisions.md §7).
    ingestRetryWindowSeconds: read.duration('INGEST_RETRY_WINDOW', 24 * 3600, nodeEnv === 'test' ? 10 : 60, 30 * 24 * 3600),
    handoverPollMs: read.integer('HANDOVER_POLL_MS', 2000, 50, 60_000),
    // 10 s at least; under NODE_ENV=test 2 s, so the test of an AI provider that never recovers waits one short window.
    postMeetingRetryWindowSeconds: read.duration('POST_MEETING_RETRY_WINDOW', 30 * 60, nodeEnv === 'test' ? 2 : 10, 7 * 24 * 3600),
    outsideStepTimings: read.boolean('SHORT_OUTSIDE_STEP_TIMINGS', false) ? shortOutsideStepTimings(nodeEnv) : undefined,
    wsOriginPatterns: read.list('WS_ORIGIN_PATTERNS', ['http://localhost:*', 'http://127.0.0.1:*', 'https://localhost:*', 'https://127.0.0.1:*']),
    rateLimitPerMinute: read.integer('RATE_LIMIT_PER_MINUTE', 1200, 1, 1_000_000),
    authFailureLimitPerMinute: read.integer('AUTH_FAILURE_LIMIT_PER_MINUTE', 60, 1, 1_000_000),
    trustProxy: read.trustProxy('TRUST_PROXY'),
    http: read.httpTimeouts(),
    ws: {
      maxSocketsPerParticipant: read.integer('WS_MAX_SOCKETS_PER_PARTICIPANT', 5, 1, 100),
      upgradesPerAddressPerMinute: read.integer('WS_UPGRADES_PER_ADDRESS_PER_MINUTE', 120, 1, 1_000_000),
      // Room events kept for resume (docs/decisions.md §11), also capped at each room's last 1,000.
      resumeWindowSeconds: read.duration('WS_RESUME_WINDOW', 600, 1, 24 * 3600),
      // A crashed instance's participants stay present this long. The heartbeat (a third of it) leaves room for two
      // missed refreshes before a live instance's sockets stop counting; below 5 s (heartbeats under 2 s) a GC pause or a
      // slow commit would reap live sockets, and beyond 10 minutes the dead look present for too long.
      presenceStaleAfterSeconds: read.duration('WS_PRESENCE_STALE_AFTER', 30, 5, 600),
      // A silent LISTEN connection is noticed two to four intervals after it stops. A second at least: the deadline (two
      // intervals) must stay well above a busy event loop's delays, or a live connection would pass for a dead one and
      // every socket of the instance be told to resume; a minute at most, or an instance could send its sockets nothing
      // for minutes.
      listenCheckIntervalSeconds: read.duration('WS_LISTEN_CHECK_INTERVAL', 5, 1, 60),
    },
    tokens: {
      issuer: read.string('JWT_ISSUER', 'convene'),
      audience: read.string('JWT_AUDIENCE', 'convene-api'),
      tenantAccessTtl: read.integer('TENANT_ACCESS_TOKEN_TTL_SECONDS', 900, 60, 86_400),
      participantTtl: read.integer('PARTICIPANT_TOKEN_TTL_SECONDS', 3600, 60, 86_400),
      refreshTtl: read.integer('REFRESH_TOKEN_TTL_SECONDS', 30 * 86_400, 3600, 365 * 86_400),
    },
    validateResponses: read.boolean('VALIDATE_RESPONSES', nodeEnv === 'test'),
    providers: {
      openai: {
        baseUrl: read.url('OPENAI_BASE_URL', 'https://api.openai.com/v1'),
        apiKey: read.optionalString('OPENAI_API_KEY', 1),
        model: read.string('OPENAI_TRANSCRIPTION_MODEL', 'gpt-4o-transcribe-diarize'),
        maxConcurrency: read.integer('OPENAI_MAX_CONCURRENCY', 4, 1, 100),
        // OpenAI's own limit is 25 MB per file.
        maxUploadBytes: read.integer('OPENAI_MAX_UPLOAD_BYTES', 25 * 1024 * 1024, 64 * 1024, 2 ** 40),
        timeoutMs: read.integer('OPENAI_TIMEOUT_MS', 600_000, 1000, 86_400_000),
      },
      deepgram: {
        baseUrl: read.url('DEEPGRAM_BASE_URL', 'https://api.deepgram.com'),
        apiKey: read.optionalString('DEEPGRAM_API_KEY', 1),
        model: read.string('DEEPGRAM_MODEL', 'nova-3'),
        maxConcurrency: read.integer('DEEPGRAM_MAX_CONCURRENCY', 4, 1, 100),
        // Deepgram accepts files up to 2 GB.
        maxUploadBytes: read.integer('DEEPGRAM_MAX_UPLOAD_BYTES', 2 * 1000 ** 3, 64 * 1024, 2 ** 40),
        timeoutMs: read.integer('DEEPGRAM_TIMEOUT_MS', 600_000, 1000, 86_400_000),
      },
      defaultTranscription: read.oneOf('TRANSCRIPTION_DEFAULT_PROVIDER', ['openai', 'deepgram'], 'openai'),
      ai: {
        defaultProvider: read.oneOf('AI_DEFAULT_PROVIDER', ['builtin', 'openai-compatible'], 'builtin'),
        baseUrl: read.url('AI_BASE_URL', 'https://api.openai.com/v1'),
        apiKey: read.optionalString('AI_API_KEY', 1),
        model: read.aiModel('AI_MODEL', 'openai/gpt-4o-mini'),
        // The base time limit of one chat completion; the prompt's allowance below is added to it.
        timeoutMs: read.integer('AI_TIMEOUT_MS', 120_000, 1000, 3_600_000),
        // 30 s per 1,000 prompt tokens: about twice what a self-hosted server on CPU needs to read them (~60 tokens/s).
        timeoutPer1kTokensMs: read.integer('AI_TIMEOUT_PER_1K_TOKENS_MS', 30_000, 0, 600_000),
        // Self-hosted servers often run with 8k tokens (llama.cpp `-c 8192`); hosted models take far more (gpt-4o-mini:
        // 128000), and a larger value means fewer, better-informed parts. Too large is safe with llama.cpp (its refusal
        // makes the parts smaller) but not with servers that silently drop the start of a long prompt.
        contextTokens: read.integer('AI_CONTEXT_TOKENS', 8192, 2048, 10_000_000),
      },
      },
    metrics: {
      token: read.optionalString('METRICS_TOKEN', 16),
      workerPort: read.port('WORKER_METRICS_PORT', 0),
    },
    tracing: readTracingConfig(read),
  };
  return config;
}

/**
 * The heartbeat timeout and retry delays SHORT_OUTSIDE_STEP_TIMINGS gives the provider steps of the runs a test starts
 * (workflows/shared.ts OutsideStepTimings), instead of 15 s (a webhook attempt's 10 s) and a first retry after 2 to
 * 10 s doubling: a worker killed mid-step is noticed and the step retried in about 5 s instead of 11 to 25 s, and a step
 * whose outage outlasts its retry window is retried every 2 s at most, so it fails soon after the window ends.
 * The heartbeat timeout keeps room for a busy machine: the SDK sends heartbeats every 0.8 of it (4 s), and the
 * transcription step heartbeats a third of it while the provider works (src/activities/transcription.ts).
 */
export const SHORT_OUTSIDE_STEP_TIMINGS: OutsideStepTimings = { heartbeatTimeoutMs: 5000, initialIntervalMs: 500, maximumIntervalMs: 2000 };

/** Tests only: a production or development run never gets shorter timings than its workflow's (the commands it records). */
function shortOutsideStepTimings(nodeEnv: NodeEnv): OutsideStepTimings {
  if (nodeEnv !== 'test') throw new ConfigError('Invalid SHORT_OUTSIDE_STEP_TIMINGS: may be set under NODE_ENV=test only');
  return SHORT_OUTSIDE_STEP_TIMINGS;
}

/** The OpenTelemetry variables Convene decides on (OTLP over HTTP only: a grpc protocol is refused, not ignored). */
function readTracingConfig(read: Reader): Config['tracing'] {
  const endpoint = read.optionalUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['http:', 'https:']) ?? read.optionalUrl('OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']);
  const protocolVariable = read.isSet('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = read.oneOf(protocolVariable, ['http/protobuf', 'http/json'], 'http/protobuf');
  return { enabled: endpoint !== undefined && !read.boolean('OTEL_SDK_DISABLED', false), protocol };
}

function readWorkerConfig(read: Reader): WorkerConfig {
  // The SDK's 40: bench/burst.ts found no reliable gain from 100 on a CPU-bound machine (docs/scaling.md).
  const maxConcurrentWorkflowTasks = read.integer('WORKER_MAX_CONCURRENT_WORKFLOW_TASKS', 40, 2, 1000);
  const maxConcurrentActivities = read.integer('WORKER_MAX_CONCURRENT_ACTIVITIES', 100, 1, 10_000);
  const worker: WorkerConfig = {
    maxConcurrentWorkflowTasks,
    maxConcurrentActivities,
    workflowTaskPollers: read.integer('WORKER_WORKFLOW_TASK_POLLERS', Math.min(10, maxConcurrentWorkflowTasks), 2, 1000),
    activityTaskPollers: read.integer('WORKER_ACTIVITY_TASK_POLLERS', Math.min(10, maxConcurrentActivities), 1, 1000),
    maxCachedWorkflows: read.optionalInteger('WORKER_MAX_CACHED_WORKFLOWS', 0, 1_000_000),
    stickyScheduleToStartTimeoutMs: read.duration('WORKER_STICKY_SCHEDULE_TO_START_TIMEOUT', 10, 1, 3600) * 1000,
    sdkMetricsAddress: read.optionalHostPort('WORKER_TEMPORAL_METRICS_ADDRESS'),
    workflowBundlePath: read.optionalString('WORKFLOW_BUNDLE_PATH', 1),
  };
  // The SDK refuses these at Worker.create; saying so here names the variables.
  if (worker.workflowTaskPollers > maxConcurrentWorkflowTasks) {
    throw new ConfigError('Invalid WORKER_WORKFLOW_TASK_POLLERS: must not exceed WORKER_MAX_CONCURRENT_WORKFLOW_TASKS');
  }
  if (worker.activityTaskPollers > maxConcurrentActivities) {
    throw new ConfigError('Invalid WORKER_ACTIVITY_TASK_POLLERS: must not exceed WORKER_MAX_CONCURRENT_ACTIVITIES');
  }
  return worker;
}

/** Reads one variable at a time; every failure names the variable. */
class Reader {
  private readonly env: Env;
  constructor(env: Env) {
    this.env = env;
  }

  isSet(name: string): boolean {
    return this.raw(name) !== undefined;
  }

  private raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? undefined : value;
  }

  private fail(name: string, why: string): never {
    throw new ConfigError(`Invalid ${name}: ${why}`);
  }

  string(name: string, fallback: string | undefined): string {
    const value = this.raw(name) ?? fallback;
    if (value === undefined) this.fail(name, 'required in production');
    return value;
  }

  optionalString(name: string, minLength: number): string | undefined {
    const value = this.raw(name);
    if (value !== undefined && value.length < minLength) this.fail(name, `must be at least ${minLength} characters`);
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name) ?? fallback;
    if (!allowed.includes(value as T)) this.fail(name, `must be one of ${allowed.join(', ')}`);
    return value as T;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.fail(name, `must be an integer from ${min} to ${max}`);
    }
    return Number(value);
  }

  optionalInteger(name: string, min: number, max: number): number | undefined {
    return this.raw(name) === undefined ? undefined : this.integer(name, 0, min, max);
  }

  /** `host:port`, e.g. `127.0.0.1:9465` (IPv6 hosts in brackets). */
  optionalHostPort(name: string): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(value);
    if (!match || Number(match[2]) < 1 || Number(match[2]) > 65535) this.fail(name, 'must be host:port, e.g. 127.0.0.1:9465');
    return value;
  }

  port(name: string, fallback: number): number {
    return this.integer(name, fallback, 0, 65535);
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!['true', 'false', '1', '0'].includes(value)) this.fail(name, 'must be true or false');
    return value === 'true' || value === '1';
  }

  /** Off by default, and refused in production, where downloads reach public addresses only (docs/decisions.md §7). */
  allowLoopback(name: string, production: boolean): boolean {
    const allowed = this.boolean(name, false);
    if (allowed && production) this.fail(name, 'must not be set in production (downloads reach public addresses only)');
    return allowed;
  }

  url(name: string, fallback: string): string {
    return this.optionalUrl(name, ['http:', 'https:']) ?? fallback;
  }

  optionalUrl(name: string, protocols: string[]): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      this.fail(name, 'must be a URL');
    }
    if (!protocols.includes(parsed.protocol)) this.fail(name, `must use ${protocols.join(' or ')}`);
    return value.replace(/\/+$/, '');
  }

  /** `<vendor>/<model>`, e.g. `openai/gpt-4o-mini` (docs/decisions.md §9). */
  aiModel(name: string, fallback: string): string {
    const value = this.raw(name) ?? fallback;
    if (!/^[A-Za-z0-9._-]+\/[A-Za-z0-9._:/-]+$/.test(value) || value.length > 200) {
      this.fail(name, 'must look like <vendor>/<model>, e.g. openai/gpt-4o-mini');
    }
    return value;
  }

  list(name: string, fallback: string[]): string[] {
    const value = this.raw(name);
    return value === undefined ? fallback : value.split(',').map((s) => s.trim()).filter(Boolean);
  }

  /** One duration like `90s`, `30m`, `24h` or `7d` (a plain number is seconds), in seconds. */
  duration(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const units: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };
    const match = /^(\d+)(s|m|h|d)?$/.exec(value.trim());
    if (!match) this.fail(name, `"${value}" is not a duration like 30m, 24h or 2d`);
    const seconds = Number(match[1]) * units[match[2] ?? ''];
    if (seconds < min || seconds > max) this.fail(name, `must be from ${min} s to ${max} s`);
    return seconds;
  }

  /** Durations like `0,1m,5m,15m,1h,4h` (plain numbers are seconds). */
  durations(name: string, fallback: number[]): number[] {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const units: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600 };
    const delays = value.split(',').map((part) => {
      const match = /^(\d+)(s|m|h)?$/.exec(part.trim());
      if (!match) this.fail(name, `"${part}" is not a duration like 30s, 5m or 1h`);
      return Number(match[1]) * units[match[2] ?? ''];
    });
    if (delays.length < 1 || delays.length > 20) this.fail(name, 'must list 1 to 20 delays');
    return delays;
  }

  /** TRUST_PROXY: checked by compiling it as the server will. */
  trustProxy(name: string): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    try {
      compileTrustProxy(value);
    } catch (err) {
      this.fail(name, `${(err as Error).message}; use a hop count or addresses, CIDR ranges, loopback, linklocal, uniquelocal`);
    }
    return value;
  }

  /**
   * The HTTP server's timeouts: headers within 20 s (a client trickling its headers is cut off), the whole request
   * (bodies are at most 1 MiB) within 60 s, an idle keep-alive connection kept 5 s (Node's default; behind a load
   * balancer, set it above the balancer's idle timeout), a response taken by the client within 60 s of its headers
   * (a client that stops reading is dropped, docs/decisions.md §16), at most 100 header lines (more: 400).
   */
  httpTimeouts(): Config['http'] {
    const headersTimeoutMs = this.integer('HTTP_HEADERS_TIMEOUT_MS', 20_000, 100, 600_000);
    const requestTimeoutMs = this.integer('HTTP_REQUEST_TIMEOUT_MS', 60_000, 100, 3_600_000);
    if (headersTimeoutMs > requestTimeoutMs) this.fail('HTTP_HEADERS_TIMEOUT_MS', 'must not exceed HTTP_REQUEST_TIMEOUT_MS');
    return {
      headersTimeoutMs,
      requestTimeoutMs,
      keepAliveTimeoutMs: this.integer('HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
      writeTimeoutMs: this.integer('HTTP_WRITE_TIMEOUT_MS', 60_000, 100, 3_600_000),
      maxHeadersCount: this.integer('HTTP_MAX_HEADERS_COUNT', 100, 20, 2000),
    };
  }

  /** SECRETS_KEY's format is the secret box's own rule (parseSecretsKeys); its message never echoes a key. */
  secretsKey(name: string, fallback: string | undefined): string {
    const value = this.string(name, fallback);
    try {
      parseSecretsKeys(value);
    } catch (err) {
      this.fail(name, (err as Error).message.replace(/^SECRETS_KEY: /, ''));
    }
    return value;
  }
}
