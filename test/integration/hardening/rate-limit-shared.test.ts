// The per-tenant rate limit holds across API instances: two real API processes on one database share the counters in
// PostgreSQL, so a tenant alternating between them still gets `RATE_LIMIT_PER_MINUTE` requests in a window, not twice
// that; and the windows that ended are deleted, whichever key they were counted under (docs/decisions.md §16).
import pg from 'pg';
import { createTestDatabase } from '../../harness/database.ts';
import { startApiProcess, type ApiProcess } from '../../helpers/api-process.ts';

const ADMIN_KEY = 'test-admin-key-rate-limit-shared';
const LIMIT = 10;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
const apis: ApiProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  const env = { ADMIN_API_KEY: ADMIN_KEY, RATE_LIMIT_PER_MINUTE: String(LIMIT) };
  apis.push(await startApiProcess(db.url, env)); // first alone: it applies the migrations
  apis.push(await startApiProcess(db.url, env));
}, 90_000);

afterAll(async () => {
  await Promise.all(apis.map((a) => a.stop()));
  await db?.drop();
});

test('a tenant alternating between two instances gets the limit once, then 429 RATE_LIMITED with Retry-After on both', async () => {
  const [a, b] = apis;
  // Windows that ended, left from earlier minutes by keys never seen again (an address, a deleted tenant).
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const ended = async () => (await client.query(`select key from rate_limit_windows where window_start < now() - interval '5 minutes' order by key`)).rows;
  await client.query(
    `insert into rate_limit_windows (key, window_start, hits) values ('addr:198.51.100.1', now() - interval '10 minutes', 7), ('tenant:gone', now() - interval '2 days', 999)`,
  );
  expect(await ended()).toEqual([{ key: 'addr:198.51.100.1' }, { key: 'tenant:gone' }]);
  const created = await a.call('POST', '/api/v1/tenants', { 'X-Admin-Key': ADMIN_KEY }, { name: 'Busy tenant' });
  expect(created.status).toBe(201);
  const auth = { 'X-API-Key': created.body.data.api_key as string };
  const other = await a.call('POST', '/api/v1/tenants', { 'X-Admin-Key': ADMIN_KEY }, { name: 'Quiet tenant' });
  // The windows are whole minutes of the database clock: start well inside one so the burst cannot straddle two.
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));

  const statuses: number[] = [];
  let refused: Awaited<ReturnType<ApiProcess['call']>> | undefined;
  for (let i = 0; i < 3 * LIMIT; i++) {
    const res = await (i % 2 === 0 ? a : b).call('GET', '/api/v1/rooms', auth);
    statuses.push(res.status);
    if (res.status === 429) refused ??= res;
  }
  expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
  expect(statuses.filter((s) => s === 429)).toHaveLength(2 * LIMIT);
  expect(statuses.slice(0, LIMIT).every((s) => s === 200)).toBe(true);
  expect(refused!.body.error.code).toBe('RATE_LIMITED');
  const retryAfter = Number(refused!.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  // Another tenant has its own counter, on either instance; the admin is never limited.
  const otherKey = `tenant:${other.body.data.id}`;
  try {
    expect((await b.call('GET', '/api/v1/rooms', { 'X-API-Key': other.body.data.api_key })).status).toBe(200);
    expect((await client.query('select hits from rate_limit_windows where key = $1', [otherKey])).rows).toEqual([{ hits: 1 }]);
    // The first claims of this window deleted every window that ended, whoever's it was: the table keeps current ones.
    expect(await ended()).toEqual([]);
  } finally {
    await client.end();
  }
  expect((await b.call('POST', '/api/v1/tenants', { 'X-Admin-Key': ADMIN_KEY }, { name: 'Later tenant' })).status).toBe(201);
}, 120_000);
