// GET /metrics (docs/decisions.md §12): the numbers move with the traffic a user sends, labels stay bounded, and with
// METRICS_TOKEN set only the bearer of that token may scrape.
import { readFileSync } from 'node:fs';
import { metrics } from '../../src/metrics/metrics.ts';
import { serveWorkerMetrics } from '../../src/metrics/worker-endpoint.ts';
import { createLogger } from '../../src/logger.ts';
import { addParticipant, createRoom, createTenant } from '../helpers/fixtures.ts';
import { startRealtimeServer, type RealtimeServer } from '../helpers/realtime-server.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { sample } from '../helpers/prometheus.ts';
import { connect } from '../helpers/ws-client.ts';

async function scrape(t: TestApp, headers: Record<string, string> = {}): Promise<string> {
  const res = await t.request.get('/metrics').set(headers);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
}

async function eventually(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('without METRICS_TOKEN (development)', () => {
  let t: TestApp;
  let server: RealtimeServer;
  beforeAll(async () => {
    t = await createTestApp();
    server = await startRealtimeServer(t.services);
  });
  afterAll(async () => {
    await server.close();
    await t.close();
  });

  test('is open, and request histograms count by operationId and status, never by raw path', async () => {
    const before = await scrape(t);
    const health = { operation: 'getHealth', status: '200' };
    const unmatched = { operation: 'unmatched', status: '404' };
    const invalid = { operation: 'listRooms', status: '400' };
    await t.request.get('/healthz').expect(200);
    await t.request.get('/healthz').expect(200);
    await t.request.get('/api/v1/no-such-thing-4711').expect(404);
    await t.request.get('/api/v1/rooms?limit=0').set('X-API-Key', 'cvn_x').expect(400);
    const after = await scrape(t);

    const count = 'convene_http_request_duration_seconds_count';
    expect(sample(after, count, health) - sample(before, count, health)).toBe(2);
    expect(sample(after, count, unmatched) - sample(before, count, unmatched)).toBe(1);
    expect(sample(after, count, invalid) - sample(before, count, invalid)).toBe(1);
    expect(sample(after, 'convene_http_request_duration_seconds_bucket', { ...health, le: '+Inf' })).toBe(sample(after, count, health));
    expect(after).not.toContain('no-such-thing-4711');
    // Every metric family docs/metrics.md lists is registered from the start, even those other branches feed.
    for (const family of [
      'convene_http_request_duration_seconds',
      'convene_websockets_open',
      'convene_room_events_total',
      'convene_workflow_starts_total',
      'convene_webhook_attempts_total',
      'convene_transcription_duration_seconds',
      'convene_ai_duration_seconds',
      'convene_db_pool_connections',
      'convene_process_cpu_seconds_total',
    ]) {
      expect(after).toContain(`# TYPE ${family} `);
    }
  });

  test('every series docs/grafana-dashboard.json queries is one this endpoint exposes', async () => {
    const dashboard = readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8');
    const queried = new Set(dashboard.match(/convene_\w+/g));
    expect(queried.size).toBeGreaterThan(5);
    const exposed = await scrape(t);
    for (const name of queried) expect(exposed).toMatch(new RegExp(`^# TYPE ${name.replace(/_(bucket|count|sum)$/, '')} `, 'm'));
  });

  test('database connections by pool: a transaction in progress is lent, and back once it ends', async () => {
    const lent = async () => sample(await scrape(t), 'convene_db_pool_connections', { pool: 'orm', state: 'lent' });
    const first = await scrape(t);
    for (const pool of ['orm', 'participant-writer', 'room-bus']) {
      expect(first).toMatch(new RegExp(`^convene_db_pool_connections\\{pool="${pool}",state="idle"\\} \\d+$`, 'm'));
    }
    expect(sample(first, 'convene_db_pool_connections', { pool: 'orm', state: 'waiting' })).toBe(0);

    // Two transactions hold a connection each (the hand-over relay may briefly hold a third).
    const held = [t.services.orm.em.fork(), t.services.orm.em.fork()];
    for (const em of held) {
      await em.begin();
      await em.execute('select 1');
    }
    expect(await lent()).toBeGreaterThanOrEqual(2);
    for (const em of held) await em.commit();
    await eventually(async () => (await lent()) === 0, 'no orm connection lent');
  });

  test('open sockets, room events and workflow starts follow a participant joining and leaving', async () => {
    const tenant = await createTenant(t);
    const before = await scrape(t);
    const room = await createRoom(t, tenant);
    const host = await addParticipant(t, tenant, room.id, { role: 'host' });

    // Creating the room starts its empty-room timer (signal-with-start, not awaited by the request).
    await eventually(
      async () => sample(await scrape(t), 'convene_workflow_starts_total', { kind: 'emptyRoomWorkflow' }) > sample(before, 'convene_workflow_starts_total', { kind: 'emptyRoomWorkflow' }),
      'an emptyRoomWorkflow start',
    );

    const socket = await connect(server.wsUrl, host.access_token);
    await socket.next('room.snapshot');
    const joined = await scrape(t);
    expect(sample(joined, 'convene_websockets_open') - sample(before, 'convene_websockets_open')).toBe(1);
    const joins = { event: 'participant.joined' };
    expect(sample(joined, 'convene_room_events_total', joins) - sample(before, 'convene_room_events_total', joins)).toBe(1);

    socket.send({ event: 'chat.send', data: { text: 'hello metrics' } });
    await socket.next('chat.message');
    // The sender hears its chat through PostgreSQL NOTIFY, which may overtake the COMMIT reply the counter follows.
    const chats = { event: 'chat.message' };
    const chatDelta = async () => sample(await scrape(t), 'convene_room_events_total', chats) - sample(joined, 'convene_room_events_total', chats);
    await eventually(async () => (await chatDelta()) >= 1, 'the chat.message count');
    expect(await chatDelta()).toBe(1);

    await socket.close();
    await eventually(async () => sample(await scrape(t), 'convene_websockets_open') === sample(before, 'convene_websockets_open'), 'the socket gauge to drop');
  });

  test('the API other branches call records webhook attempts and provider durations with bounded labels', async () => {
    const before = await scrape(t);
    metrics.webhookAttempt('succeeded');
    metrics.webhookAttempt('timeout');
    metrics.observeTranscription('deepgram', 42, true);
    await expect(metrics.time((s, ok) => metrics.observeAi('openai', s, ok), async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    metrics.observeAi('weird provider {"x"}', 1, true);
    const after = await scrape(t);
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('convene_webhook_attempts_total', { outcome: 'succeeded' })).toBe(1);
    expect(delta('convene_webhook_attempts_total', { outcome: 'timeout' })).toBe(1);
    expect(delta('convene_transcription_duration_seconds_count', { provider: 'deepgram', result: 'ok' })).toBe(1);
    expect(delta('convene_transcription_duration_seconds_sum', { provider: 'deepgram', result: 'ok' })).toBe(42);
    expect(delta('convene_ai_duration_seconds_count', { provider: 'openai', result: 'error' })).toBe(1);
    expect(delta('convene_ai_duration_seconds_count', { provider: 'other', result: 'ok' })).toBe(1);
    expect(after).not.toContain('weird provider');
  });
});

describe('with METRICS_TOKEN', () => {
  const token = 'metrics-token-0123456789abcdef';
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ METRICS_TOKEN: token });
  });
  afterAll(async () => {
    await t.close();
  });

  test.each([
    ['no credential', {}],
    ['a wrong token', { Authorization: 'Bearer metrics-token-0123456789abcdeX' }],
    ['a prefix of the token', { Authorization: `Bearer ${token.slice(0, 10)}` }],
    ['the token without the Bearer scheme', { Authorization: token }],
  ])('%s is 401 UNAUTHORIZED, with no numbers', async (_what, headers: Record<string, string>) => {
    const res = await t.request.get('/metrics').set(headers);
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'UNAUTHORIZED', request_id: res.headers['x-request-id'] });
    expect(res.text).not.toContain('convene_');
  });

  test('the bearer of the token scrapes', async () => {
    expect(await scrape(t, { Authorization: `Bearer ${token}` })).toContain('convene_http_request_duration_seconds');
  });

  test('the token never reaches the logs', () => {
    expect(t.logs()).not.toContain(token);
  });
});

test('the worker endpoint (WORKER_METRICS_PORT) applies the same token rule', async () => {
  const token = 'worker-metrics-token-0123456789';
  const { port, stop } = await serveWorkerMetrics(0, token, createLogger('silent'));
  try {
    const url = `http://127.0.0.1:${port}/metrics`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { Authorization: 'Bearer worker-metrics-token-012345678X' } })).status).toBe(401);
    const ok = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('# TYPE convene_webhook_attempts_total counter');
    expect((await fetch(`http://127.0.0.1:${port}/other`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(404);
  } finally {
    await stop();
  }
});
