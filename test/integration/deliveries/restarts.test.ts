// Nothing lost across restarts (docs/decisions.md §10): a delivery whose first attempt failed survives the API and the worker
// being restarted and its PostgreSQL being stopped and started again between two attempts. The harness's PostgreSQL
// is shared by every test file, so this one starts a private PostgreSQL (scripts/stack/postgres.ts) it may stop.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import supertest from 'supertest';
import { startPostgres, type PostgresServer } from '../../../scripts/stack/postgres.ts';
import { createApp } from '../../../src/app.ts';
import { loadConfig, SHORT_OUTSIDE_STEP_TIMINGS } from '../../../src/config.ts';
import { createLogger } from '../../../src/logger.ts';
import { createDelivery, deliveryStart } from '../../../src/modules/deliveries/delivery.service.ts';
import { startHandover } from '../../../src/handover/relay.ts';
import { withOutsideStepTimings } from '../../../src/handover/handover.ts';
import { createTemporalClient, type TemporalClient } from '../../../src/temporal/client.ts';
import { createServices, type Services } from '../../../src/services/container.ts';
import { ensureBuckets } from '../../../src/storage/s3-client.ts';
import { webhookDeliveryWorkflowId } from '../../../workflows/shared.ts';
import { configureWebhook, processedRecording } from '../../helpers/delivery-fixtures.ts';
import { createRoom, createTenant } from '../../helpers/fixtures.ts';
import { spawnWorker, type WorkerProcess } from '../../helpers/recording-stack.ts';
import { ADMIN_KEY, type TestApp } from '../../helpers/test-app.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';

const SECRET = 'whsec_restart_secret_0123456789abcdef';
// The second attempt comes 20 s after the first: time to restart the API and the worker and stop PostgreSQL first.
const SCHEDULE = [0, 20, 4, 4, 4, 4];
const taskQueue = `deliveries-restart-${randomUUID()}`;

let dataDir: string;
let postgres: PostgresServer;
let databaseUrl: string;
let receiver: WebhookReceiver;
let temporal: TemporalClient;
const env: Record<string, string> = {};

/** The real app on the private PostgreSQL: what createTestApp builds, minus the harness database. */
async function startApi(): Promise<TestApp> {
  const config = loadConfig({ ...env, ADMIN_API_KEY: ADMIN_KEY });
  // Warnings only: a close step still running after 5 s says which (src/services/container.ts).
  const services: Services = await createServices(config, createLogger('warn'), databaseUrl);
  await ensureBuckets(services.s3, config.s3);
  const app = createApp(services);
  return { app, services, config, databaseUrl, request: supertest(app), logs: () => '', close: () => services.close() };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'convene-deliveries-pg-'));
  await chmod(dataDir, 0o755); // as the harness does: the server may run as an unprivileged user
  postgres = await startPostgres({ dataDir, password: 'restart-test', durable: false });
  await postgres.createDatabase('convene');
  databaseUrl = postgres.url('convene');
  receiver = await startWebhookReceiver(SECRET);
  Object.assign(env, {
    ...Object.fromEntries(
      ['PATH', 'HOME', 'S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'TEMPORAL_ADDRESS']
        .filter((n) => process.env[n] !== undefined)
        .map((n) => [n, process.env[n]!]),
    ),
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl,
    TEMPORAL_TASK_QUEUE: taskQueue,
    WEBHOOK_RETRY_DELAYS: SCHEDULE.join(','),
    WEBHOOK_TIMEOUT_MS: '2000',
  });
  // Its close ends the calls in flight before the channel closes (src/temporal/client.ts).
  temporal = createTemporalClient({ address: process.env.TEMPORAL_ADDRESS!, namespace: 'default', taskQueue });
}, 60_000);

afterAll(async () => {
  await receiver?.close();
  await temporal?.close();
  await postgres?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function attemptRows(): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query('select count(*)::int as n from webhook_delivery_attempts')).rows[0].n;
  } finally {
    await client.end();
  }
}

test('API and worker restarted, PostgreSQL stopped and started between two attempts: one delivery succeeded', async () => {
  let api = await startApi();
  let worker: WorkerProcess = await spawnWorker(env);
  try {
    const tenant = await createTenant(api);
    const room = await createRoom(api, tenant);
    await configureWebhook(api, tenant, { url: receiver.url, secret: SECRET });
    const { recordingId } = await processedRecording(api, tenant, room.id);
    const delivery = await createDelivery(api.services.orm.em.fork(), api.services.tenants, { tenantId: tenant.id, roomId: room.id, recordingId });
    receiver.script([{ status: 503 }], { status: 200 });
    // Once PostgreSQL is back, the attempt that failed on it is retried within 2 s (SHORT_OUTSIDE_STEP_TIMINGS,
    // src/config.ts), not after the workflow's own backoff (1 s doubling, capped at 1 min), 8 s and more by then.
    await startHandover(temporal.client, taskQueue, withOutsideStepTimings(deliveryStart(delivery!, SCHEDULE), SHORT_OUTSIDE_STEP_TIMINGS));
    await receiver.waitFor(1);
    const firstAt = receiver.received[0].receivedAt;
    // The first attempt is recorded; its retry is 20 s away.
    for (let i = 0; i < 50 && (await attemptRows()) < 1; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await attemptRows()).toBe(1);

    // The API and the worker are restarted.
    await api.close();
    await worker.stop();
    worker = await spawnWorker(env);
    api = await startApi();
    // Then the database goes away while the second attempt comes due (20 s after the first): the running worker's
    // activity fails on the database and is retried by its policy; no POST is made without the rows it needs.
    await postgres.stop();
    // No wall-clock bound (docs/decisions.md §15): on a busy machine the restarts may take longer than the 20 s retry delay.
    // Then attempt 2 may have been made before the outage; the outcome below must hold either way.
    const downAfterMs = Date.now() - firstAt;
    console.log(`[deliveries/restarts] PostgreSQL stopped ${downAfterMs} ms after attempt 1 (attempt 2 due at 20000 ms)`);
    await new Promise((r) => setTimeout(r, Math.max(0, firstAt + 25_000 - Date.now())));
    if (downAfterMs < 19_000) expect(receiver.received).toHaveLength(1); // down before it was due: no POST without its rows
    postgres = await startPostgres({ dataDir, password: 'restart-test', durable: false, port: postgres.port });

    const result = await temporal.client.workflow.getHandle(webhookDeliveryWorkflowId(delivery!.id)).result();
    expect(result).toEqual({ status: 'succeeded', attempts: 2 });
    expect(receiver.received).toHaveLength(2);
    expect(new Set(receiver.received.map((r) => r.headers['x-convene-delivery']))).toEqual(new Set([delivery!.id]));
    expect(receiver.received.every((r) => r.signatureValid)).toBe(true);

    const res = await api.request.get(`/api/v1/webhook-deliveries/${delivery!.id}`).set(tenant.auth);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'succeeded', attempt_count: 2, last_response_status_code: 200 });
    expect(res.body.data.attempts.map((a: any) => [a.attempt, a.status, a.response_status_code])).toEqual([
      [1, 'failed', 503],
      [2, 'succeeded', 200],
    ]);
  } finally {
    await worker?.stop();
    await api.close().catch(() => {});
  }
}, 120_000);
