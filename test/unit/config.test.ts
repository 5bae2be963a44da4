import { ConfigError, loadConfig } from '../../src/config.ts';

test('defaults need no environment outside production', () => {
  const config = loadConfig({});
  expect(config.port).toBe(3000);
  expect(config.publicBaseUrl).toBe('http://127.0.0.1:3000');
  expect(config.webhookRetryDelays).toEqual([0, 60, 300, 900, 3600, 14400]);
  expect(config.databaseUrl).toBeUndefined();
});

test('PUBLIC_BASE_URL follows a non-default PORT', () => {
  expect(loadConfig({ PORT: '4100' }).publicBaseUrl).toBe('http://127.0.0.1:4100');
});

test.each([
  ['PORT', 'eighty'],
  ['PORT', '70000'],
  ['DATABASE_URL', 'mysql://x'],
  ['S3_ENDPOINT', 'not a url'],
  ['SECRETS_KEY', 'too-short'],
  ['WEBHOOK_RETRY_DELAYS', '0,1m,soon'],
  ['NODE_ENV', 'staging'],
  ['VALIDATE_RESPONSES', 'maybe'],
  ['AUTH_FAILURE_LIMIT_PER_MINUTE', '0'],
  ['TRUST_PROXY', 'my-proxy'],
  ['HTTP_HEADERS_TIMEOUT_MS', '10'],
  ['WS_MAX_SOCKETS_PER_PARTICIPANT', '0'],
])('a set but invalid %s stops start-up with a message naming it', (name, value) => {
  expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
  expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`Invalid ${name}`));
});

test('INGEST_RETRY_WINDOW: 24 h by default, units accepted, nonsense and extremes refused (docs/decisions.md §7)', () => {
  expect(loadConfig({}).ingestRetryWindowSeconds).toBe(86_400);
  expect(loadConfig({ INGEST_RETRY_WINDOW: '90m' }).ingestRetryWindowSeconds).toBe(5400);
  expect(loadConfig({ INGEST_RETRY_WINDOW: '2d' }).ingestRetryWindowSeconds).toBe(172_800);
  expect(() => loadConfig({ INGEST_RETRY_WINDOW: 'soon' })).toThrow(/INGEST_RETRY_WINDOW/);
  expect(() => loadConfig({ INGEST_RETRY_WINDOW: '10s' })).toThrow(/INGEST_RETRY_WINDOW/);
  expect(() => loadConfig({ INGEST_RETRY_WINDOW: '59s' })).toThrow(/INGEST_RETRY_WINDOW/);
  expect(() => loadConfig({ INGEST_RETRY_WINDOW: '90d' })).toThrow(/INGEST_RETRY_WINDOW/);
  // Tests only: a 10 s floor, so a fault test waits out a short window (test/integration/faults/s3-unreachable.test.ts).
  expect(loadConfig({ NODE_ENV: 'test', INGEST_RETRY_WINDOW: '10s' }).ingestRetryWindowSeconds).toBe(10);
  expect(() => loadConfig({ NODE_ENV: 'test', INGEST_RETRY_WINDOW: '9s' })).toThrow(/INGEST_RETRY_WINDOW/);
});

test('POST_MEETING_RETRY_WINDOW: 30 min by default, units accepted, nonsense and extremes refused (docs/decisions.md §9)', () => {
  expect(loadConfig({}).postMeetingRetryWindowSeconds).toBe(1800);
  expect(loadConfig({ POST_MEETING_RETRY_WINDOW: '2h' }).postMeetingRetryWindowSeconds).toBe(7200);
  expect(() => loadConfig({ POST_MEETING_RETRY_WINDOW: 'later' })).toThrow(/POST_MEETING_RETRY_WINDOW/);
  expect(loadConfig({ POST_MEETING_RETRY_WINDOW: '10s' }).postMeetingRetryWindowSeconds).toBe(10); // the floor
  expect(() => loadConfig({ POST_MEETING_RETRY_WINDOW: '5s' })).toThrow(/POST_MEETING_RETRY_WINDOW/);
  expect(() => loadConfig({ POST_MEETING_RETRY_WINDOW: '30d' })).toThrow(/POST_MEETING_RETRY_WINDOW/);
  // Tests only: a 2 s floor, so a fault test waits out a short window (test/integration/transcripts/transcripts.test.ts).
  expect(loadConfig({ NODE_ENV: 'test', POST_MEETING_RETRY_WINDOW: '2s' }).postMeetingRetryWindowSeconds).toBe(2);
  expect(() => loadConfig({ NODE_ENV: 'test', POST_MEETING_RETRY_WINDOW: '1s' })).toThrow(/POST_MEETING_RETRY_WINDOW/);
});

test('SHORT_OUTSIDE_STEP_TIMINGS: off by default; tests only, where it gives the handed-over runs short heartbeat timeouts and retry delays', () => {
  expect(loadConfig({}).outsideStepTimings).toBeUndefined();
  expect(loadConfig({ NODE_ENV: 'test' }).outsideStepTimings).toBeUndefined();
  expect(loadConfig({ NODE_ENV: 'test', SHORT_OUTSIDE_STEP_TIMINGS: 'false' }).outsideStepTimings).toBeUndefined();
  expect(loadConfig({ NODE_ENV: 'test', SHORT_OUTSIDE_STEP_TIMINGS: 'true' }).outsideStepTimings).toEqual({
    heartbeatTimeoutMs: 5000,
    initialIntervalMs: 500,
    maximumIntervalMs: 2000,
  });
  // A production or development process never records runs with other timings than their workflow's.
  const secrets = { UPSTREAM_WEBHOOK_SECRET: 'x', SECRETS_KEY: Buffer.alloc(32).toString('hex') };
  for (const NODE_ENV of ['production', 'development']) {
    expect(() => loadConfig({ ...secrets, NODE_ENV, SHORT_OUTSIDE_STEP_TIMINGS: 'true' })).toThrow(/Invalid SHORT_OUTSIDE_STEP_TIMINGS/);
  }
});

test('WEBHOOK_RETRY_DELAYS accepts units', () => {
  expect(loadConfig({ WEBHOOK_RETRY_DELAYS: '0,30s,2m,1h' }).webhookRetryDelays).toEqual([0, 30, 120, 3600]);
});

test('production refuses to start without its secrets', () => {
  expect(() => loadConfig({ NODE_ENV: 'production', UPSTREAM_WEBHOOK_SECRET: 'x' })).toThrow(/Invalid SECRETS_KEY/);
  expect(() => loadConfig({ NODE_ENV: 'production', SECRETS_KEY: Buffer.alloc(32).toString('hex') })).toThrow(/Invalid UPSTREAM_WEBHOOK_SECRET/);
});

test('the edge: limits before authentication, server timeouts and socket caps have documented defaults', () => {
  const config = loadConfig({});
  expect(config.authFailureLimitPerMinute).toBe(60);
  expect(config.trustProxy).toBeUndefined();
  expect(config.http).toEqual({ headersTimeoutMs: 20_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000, writeTimeoutMs: 60_000, maxHeadersCount: 100 });
  expect(config.ws).toEqual({
    maxSocketsPerParticipant: 5,
    upgradesPerAddressPerMinute: 120,
    resumeWindowSeconds: 600,
    presenceStaleAfterSeconds: 30,
    listenCheckIntervalSeconds: 5,
  });
  expect(loadConfig({ WS_RESUME_WINDOW: '30s' }).ws.resumeWindowSeconds).toBe(30);
  expect(() => loadConfig({ WS_RESUME_WINDOW: '2d' })).toThrow(/Invalid WS_RESUME_WINDOW/);
  expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback, 10.0.0.0/8');
  // Node refuses a headers timeout longer than the request timeout; so does start-up, naming the variable.
  expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '90000' })).toThrow(/Invalid HTTP_HEADERS_TIMEOUT_MS/);
});

test('WS_PRESENCE_STALE_AFTER: 30 s by default, 5 s to 10 min; the heartbeat is a third of it', async () => {
  const { heartbeatMs } = await import('../../src/realtime/presence.ts');
  expect(loadConfig({}).ws.presenceStaleAfterSeconds).toBe(30);
  expect(heartbeatMs(30)).toBe(10_000); // the heartbeat of before the setting
  expect(loadConfig({ WS_PRESENCE_STALE_AFTER: '5s' }).ws.presenceStaleAfterSeconds).toBe(5);
  // Two refreshes in a row may be missed before a live instance's sockets are stale.
  for (const seconds of [5, 7, 30, 600]) expect(3 * heartbeatMs(seconds)).toBeLessThanOrEqual(seconds * 1000);
  expect(loadConfig({ WS_PRESENCE_STALE_AFTER: '10m' }).ws.presenceStaleAfterSeconds).toBe(600);
  for (const refused of ['4s', '11m', 'soon', '-5']) {
    expect(() => loadConfig({ WS_PRESENCE_STALE_AFTER: refused })).toThrow(/Invalid WS_PRESENCE_STALE_AFTER/);
  }
});

test('WS_LISTEN_CHECK_INTERVAL: 5 s by default, 1 s to 1 min', () => {
  expect(loadConfig({}).ws.listenCheckIntervalSeconds).toBe(5);
  expect(loadConfig({ WS_LISTEN_CHECK_INTERVAL: '1s' }).ws.listenCheckIntervalSeconds).toBe(1);
  expect(loadConfig({ WS_LISTEN_CHECK_INTERVAL: '1m' }).ws.listenCheckIntervalSeconds).toBe(60);
  for (const refused of ['0', '61s', '500ms']) {
    expect(() => loadConfig({ WS_LISTEN_CHECK_INTERVAL: refused })).toThrow(/Invalid WS_LISTEN_CHECK_INTERVAL/);
  }
});

test("worker settings: the Temporal SDK's defaults unless set, passed to Worker.create by src/worker.ts", async () => {
  const { workerTuning } = await import('../../src/worker.ts');
  expect(workerTuning(loadConfig({}).worker)).toEqual({
    maxConcurrentWorkflowTaskExecutions: 40,
    maxConcurrentActivityTaskExecutions: 100,
    maxConcurrentWorkflowTaskPolls: 10,
    maxConcurrentActivityTaskPolls: 10,
    stickyQueueScheduleToStartTimeout: 10_000,
  });
  const tuned = loadConfig({
    WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '8',
    WORKER_MAX_CONCURRENT_ACTIVITIES: '4',
    WORKER_MAX_CACHED_WORKFLOWS: '500',
    WORKER_STICKY_SCHEDULE_TO_START_TIMEOUT: '30s',
    WORKER_TEMPORAL_METRICS_ADDRESS: '127.0.0.1:9465',
  }).worker;
  expect(workerTuning(tuned)).toEqual({
    maxConcurrentWorkflowTaskExecutions: 8,
    maxConcurrentActivityTaskExecutions: 4,
    // Pollers default to at most the slots they fill (10 otherwise).
    maxConcurrentWorkflowTaskPolls: 8,
    maxConcurrentActivityTaskPolls: 4,
    stickyQueueScheduleToStartTimeout: 30_000,
    maxCachedWorkflows: 500,
  });
  expect(tuned.sdkMetricsAddress).toBe('127.0.0.1:9465');
});

test.each([
  [{ WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '1' }, 'WORKER_MAX_CONCURRENT_WORKFLOW_TASKS'],
  [{ WORKER_MAX_CONCURRENT_ACTIVITIES: 'many' }, 'WORKER_MAX_CONCURRENT_ACTIVITIES'],
  [{ WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '4', WORKER_WORKFLOW_TASK_POLLERS: '5' }, 'WORKER_WORKFLOW_TASK_POLLERS'],
  [{ WORKER_MAX_CONCURRENT_ACTIVITIES: '2', WORKER_ACTIVITY_TASK_POLLERS: '3' }, 'WORKER_ACTIVITY_TASK_POLLERS'],
  [{ WORKER_MAX_CACHED_WORKFLOWS: '-1' }, 'WORKER_MAX_CACHED_WORKFLOWS'],
  [{ WORKER_STICKY_SCHEDULE_TO_START_TIMEOUT: 'soon' }, 'WORKER_STICKY_SCHEDULE_TO_START_TIMEOUT'],
  [{ WORKER_TEMPORAL_METRICS_ADDRESS: '9465' }, 'WORKER_TEMPORAL_METRICS_ADDRESS'],
])('a worker setting that the SDK would refuse stops start-up naming it: %j', (env, name) => {
  expect(() => loadConfig(env)).toThrow(new RegExp(`Invalid ${name}`));
});
