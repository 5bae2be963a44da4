// Two (then three) real API processes (`node src/main.ts api`) on one database: a room's members connected to different
// instances see each other's presence and chat in the same order, removal and shutdown close sockets on whichever
// instance holds them, and a crashed instance's participants leave once its heartbeat is stale.
import { createTestDatabase } from '../../harness/database.ts';
import { startApiProcess, type ApiProcess } from '../../helpers/api-process.ts';
import { connect, type TestSocket } from '../../helpers/ws-client.ts';

const ADMIN_KEY = 'test-admin-key-multi-instance';
// Every instance counts a socket stale after 5 s (the floor; 30 s by default), so the crash below is noticed in seconds.
// Each instance refreshes its own rows every third of it, so the survivors' sockets stay live throughout.
const STALE_AFTER_SECONDS = 5;
const startApi = (name: string, databaseUrl: string) =>
  startApiProcess(databaseUrl, { ADMIN_API_KEY: ADMIN_KEY, WS_PRESENCE_STALE_AFTER: `${STALE_AFTER_SECONDS}s` }, name);
const call = (api: ApiProcess, method: string, path: string, headers: Record<string, string>, body?: unknown) => api.call(method, path, headers, body);

let db: Awaited<ReturnType<typeof createTestDatabase>>;
const apis: ApiProcess[] = [];
const sockets: TestSocket[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  // One after the other: the first applies the migrations.
  apis.push(await startApi('A', db.url));
  apis.push(await startApi('B', db.url));
}, 90_000);

afterAll(async () => {
  for (const s of sockets) s.ws.terminate();
  for (const api of apis) {
    api.proc.kill('SIGTERM');
    await api.exited();
  }
  const leaked = apis.map((api) => api.output()).join('').match(/"level":(50|60).*/g) ?? [];
  expect(leaked).toEqual([]); // no error was logged by any instance
  await db?.drop();
});

test('chat, presence, removal, shutdown and a crash, across API instances', async () => {
  const [a, b] = apis;
  const tenant = (await call(a, 'POST', '/api/v1/tenants', { 'X-Admin-Key': ADMIN_KEY }, { name: 'Multi' })).body.data;
  const key = { 'X-API-Key': tenant.api_key as string };
  const room = (await call(a, 'POST', '/api/v1/rooms', key, { name: 'across' })).body;
  const add = async (display_name: string, role = 'participant') =>
    (await call(b, 'POST', `/api/v1/rooms/${room.id}/participants`, key, { display_name, role })).body;
  const [host, x, y] = [await add('Host', 'host'), await add('X'), await add('Y')];
  const join = async (api: ApiProcess, p: { access_token: string }) => {
    const s = await connect(api.wsUrl, p.access_token);
    sockets.push(s);
    await s.next('room.snapshot');
    return s;
  };
  const active = async (api: ApiProcess) =>
    ((await call(api, 'GET', `/api/v1/rooms/${room.id}/participants?active=true`, key)).body.participants as { id: string }[]).map((p) => p.id).sort();

  // Presence crosses instances.
  const h = await join(a, host);
  const sx = await join(b, x);
  expect(await h.next('participant.joined')).toMatchObject({ data: { id: x.participant.id, display_name: 'X' } });
  const sy = await join(a, y);
  expect((await sx.next('participant.joined')).data.id).toBe(y.participant.id);
  expect((await h.next('participant.joined')).data.id).toBe(y.participant.id);
  const everyone = [host, x, y].map((p) => p.participant.id).sort();
  expect(await active(a)).toEqual(everyone);
  expect(await active(b)).toEqual(everyone);

  // Chat from both instances at once: every member sees every message, in one and the same order.
  for (let i = 0; i < 10; i++) {
    h.send({ event: 'chat.send', data: { text: `from A ${i}` } });
    sx.send({ event: 'chat.send', data: { text: `from B ${i}` } });
  }
  const seen = async (s: TestSocket) => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await s.next('chat.message')).data.id);
    return ids;
  };
  const [atH, atX, atY] = [await seen(h), await seen(sx), await seen(sy)];
  expect(new Set(atH).size).toBe(20);
  expect(atX).toEqual(atH);
  expect(atY).toEqual(atH);

  // A removal requested on B closes Y's socket on A with 4003; both instances announce it.
  expect((await call(b, 'DELETE', `/api/v1/rooms/${room.id}/participants/${y.participant.id}`, key)).status).toBe(204);
  expect((await sy.closed).code).toBe(4003);
  expect(await h.next('participant.left')).toEqual({ event: 'participant.left', seq: expect.any(Number), data: { id: y.participant.id } });
  expect(await sx.next('participant.left')).toEqual({ event: 'participant.left', seq: expect.any(Number), data: { id: y.participant.id } });

  // B shuts down: its sockets close with 1001 and their participants leave for the members on A.
  b.proc.kill('SIGTERM');
  expect((await sx.closed).code).toBe(1001);
  await b.exited();
  expect(await h.next('participant.left')).toEqual({ event: 'participant.left', seq: expect.any(Number), data: { id: x.participant.id } });
  expect(await active(a)).toEqual([host.participant.id]);

  // C crashes (SIGKILL: no goodbye): X, connected there, leaves once C's heartbeat is stale and A reaps it.
  const c = await startApi('C', db.url);
  apis.push(c);
  await join(c, x);
  expect((await h.next('participant.joined')).data.id).toBe(x.participant.id);
  c.proc.kill('SIGKILL');
  await c.exited();
  expect(await h.next('participant.left', (STALE_AFTER_SECONDS + 25) * 1000)).toEqual({ event: 'participant.left', seq: expect.any(Number), data: { id: x.participant.id } });
  expect(await active(a)).toEqual([host.participant.id]);
}, 150_000);
