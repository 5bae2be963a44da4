// Provider notifications count against no tenant's request limit (docs/decisions.md §16): they carry no principal, so
// they once shared one key and every tenant's notifications got 429 past the limit. A bad signature still counts as a
// failed credential of the address (docs/decisions.md §14).
import { randomUUID } from 'node:crypto';
import { signUpstream } from '../../../src/security/signatures.ts';
import { createRoom, createTenant } from '../../helpers/fixtures.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';

const PATH = '/api/v1/webhooks/upstream/recording-ready';
const LIMIT = 3;
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    RATE_LIMIT_PER_MINUTE: String(LIMIT),
    AUTH_FAILURE_LIMIT_PER_MINUTE: String(LIMIT),
    // Loopback is the trusted proxy, so the bad signatures below come from an address of their own.
    TRUST_PROXY: 'loopback',
    // The ingestion runs these notifications start wait on a queue of this file's own: no other test's worker takes them.
    TEMPORAL_TASK_QUEUE: `notification-limit-${randomUUID()}`,
  });
}, 60_000);
afterAll(() => t?.close());

/** The windows are whole minutes of the database clock: start a burst well inside one so it cannot straddle two. */
async function insideOneWindow(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
}

const notification = (roomId: string) =>
  JSON.stringify({ type: 'recording.ready', recording_id: `up-${randomUUID()}`, meeting_id: roomId, url: 'https://media.example/r.wav', duration_seconds: 1, size_bytes: 1, content_type: 'audio/wav' });

test('a flood of notifications beyond the tenant limit is still 202, and the tenant keeps its whole budget', async () => {
  await insideOneWindow();
  const tenant = await createTenant(t); // the admin: not counted
  const room = await createRoom(t, tenant); // the tenant's first request of the window
  for (let i = 0; i < 4 * LIMIT; i++) {
    const body = notification(room.id);
    const res = await t.request.post(PATH).set('Content-Type', 'application/json').set('X-Upstream-Signature', signUpstream(t.config.upstream.webhookSecret, body)).send(body);
    expect([i, res.status]).toEqual([i, 202]);
  }
  // The notifications took nothing from the tenant: the rest of its budget, then 429.
  const statuses = [];
  for (let i = 0; i < LIMIT; i++) statuses.push((await t.request.get('/api/v1/rooms').set(tenant.auth)).status);
  expect(statuses).toEqual([...Array<number>(LIMIT - 1).fill(200), 429]);
});

test('bad signatures count as failed credentials of their address: LIMIT × 401, then 429', async () => {
  await insideOneWindow();
  const body = notification(randomUUID());
  const statuses = [];
  for (let i = 0; i <= LIMIT; i++) {
    const res = await t.request.post(PATH).set('X-Forwarded-For', '203.0.113.80').set('Content-Type', 'application/json').set('X-Upstream-Signature', signUpstream('not-the-secret', body)).send(body);
    statuses.push(res.status);
  }
  expect(statuses).toEqual([...Array<number>(LIMIT).fill(401), 429]);
});
