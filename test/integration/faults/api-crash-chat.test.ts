// Fault test (docs/security.md, "Failures the service survives"): an API instance is SIGKILLed in the middle of a chat
// burst in a room served by two instances. Every message that was stored (acknowledged by the database) must have
// reached every member still connected, on the surviving instance, in one and the same order; the survivor keeps
// serving the room.
import { createTestDatabase } from '../../harness/database.ts';
import { connect, type TestSocket } from '../../helpers/ws-client.ts';
import { startApiProcess, type ApiProcess } from '../../helpers/api-process.ts';
import pg from 'pg';

const ADMIN_KEY = 'test-admin-key-api-crash-chat';
const PER_SENDER = 25; // under the flood limit's burst of 30 (docs/decisions.md §11)
let db: Awaited<ReturnType<typeof createTestDatabase>>;
const apis: ApiProcess[] = [];
const sockets: TestSocket[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  apis.push(await startApiProcess(db.url, { ADMIN_API_KEY: ADMIN_KEY })); // first alone: it applies the migrations
  apis.push(await startApiProcess(db.url, { ADMIN_API_KEY: ADMIN_KEY }));
}, 90_000);

afterAll(async () => {
  for (const s of sockets) if (s.ws.readyState === s.ws.OPEN) await s.close();
  await Promise.all(apis.map((a) => a.stop()));
  await db?.drop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('every stored message reaches every member still connected after an instance dies mid-burst', async () => {
  const [a, b] = apis;
  const tenant = (await a.call('POST', '/api/v1/tenants', { 'X-Admin-Key': ADMIN_KEY }, { name: 'Crash' })).body.data;
  const key = { 'X-API-Key': tenant.api_key as string };
  const room = (await a.call('POST', '/api/v1/rooms', key, { name: 'burst' })).body;
  const add = async (display_name: string) => (await a.call('POST', `/api/v1/rooms/${room.id}/participants`, key, { display_name })).body;
  const join = async (api: ApiProcess, p: { access_token: string }) => {
    const s = await connect(api.baseUrl.replace('http', 'ws') + '/api/v1/ws', p.access_token);
    sockets.push(s);
    await s.next('room.snapshot');
    return s;
  };
  const [p1, p2, p3, p4] = [await add('A1'), await add('A2'), await add('B1'), await add('B2')];
  const onA = [await join(a, p1), await join(a, p2)];
  const onB = [await join(b, p3), await join(b, p4)];

  // The burst: all four send, spaced a little, and B dies a third of the way through.
  const burst = (async () => {
    for (let i = 0; i < PER_SENDER; i++) {
      for (const [n, s] of [...onA, ...onB].entries()) {
        if (s.ws.readyState === s.ws.OPEN) s.send({ event: 'chat.send', data: { text: `m${n}-${i}` } });
      }
      await sleep(20);
    }
  })();
  await sleep(150);
  b.proc.kill('SIGKILL');
  await burst;
  await Promise.all(onB.map((s) => s.closed)); // B's sockets died with it

  // Every message A's senders sent is stored, each one by its text (not a count); waited for with a generous deadline.
  const expectedFromA = new Set([0, 1].flatMap((n) => Array.from({ length: PER_SENDER }, (_, i) => `m${n}-${i}`)));
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  type Row = { id: string; sender_id: string; text: string };
  let stored: Row[] = [];
  const fromA = () => stored.filter((m) => [p1.participant.id, p2.participant.id].includes(m.sender_id)).map((m) => m.text);
  const begun = Date.now();
  for (;;) {
    stored = (await client.query<Row>('select id, sender_id, text from chat_messages where room_id = $1', [room.id])).rows;
    if (fromA().length >= expectedFromA.size || Date.now() - begun > 60_000) break;
    await sleep(100);
  }
  await client.end();
  console.log(`[api-crash-chat] A's ${expectedFromA.size} messages stored ${Date.now() - begun} ms after the burst`);
  expect(new Set(fromA())).toEqual(expectedFromA);
  expect(fromA()).toHaveLength(expectedFromA.size); // none twice
  const fromB = stored.filter((m) => [p3.participant.id, p4.participant.id].includes(m.sender_id));
  expect(fromB.length).toBeGreaterThan(0); // B stored some before it died
  // Each of B's senders' stored messages is one it sent, in its own numbering, none twice.
  for (const [n, p] of [[2, p3], [3, p4]] as const) {
    const texts = fromB.filter((m) => m.sender_id === p.participant.id).map((m) => m.text);
    expect(texts.every((text) => new RegExp(`^m${n}-\\d+$`).test(text))).toBe(true);
    expect(new Set(texts).size).toBe(texts.length);
  }

  // Every stored message reached both members on A, in the same order.
  const received = async (s: TestSocket) => {
    const ids: string[] = [];
    for (let i = 0; i < stored.length; i++) ids.push((await s.next('chat.message', 10_000)).data.id);
    return ids;
  };
  const [first, second] = [await received(onA[0]), await received(onA[1])];
  expect(new Set(first)).toEqual(new Set(stored.map((m) => m.id)));
  expect(second).toEqual(first);
  expect(onA[0].unread().filter((m) => m.event === 'chat.message')).toEqual([]); // nothing that was not stored

  // The survivor still serves the room.
  onA[0].send({ event: 'chat.send', data: { text: 'still here' } });
  expect((await onA[1].next('chat.message')).data).toMatchObject({ text: 'still here' });
  expect(a.proc.exitCode).toBeNull();
}, 120_000);
