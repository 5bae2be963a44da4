// Resume (docs/decisions.md §11) with two real API processes (`node src/main.ts api`) on one database: a client whose TCP
// connection is cut mid-chat reconnects to the OTHER instance with `resume_from` and gets every event it missed once,
// in order, then live events; a first `resume` message does the same; a resume the room no longer keeps (too old, too
// many events ago, or a seq from the future) gets resync_required and a fresh room.snapshot; a participant removed
// meanwhile is refused at the upgrade.
import { createTestDatabase } from '../../harness/database.ts';
import type { ServerMessage } from '../../../generated/asyncapi.ts';
import { PgRoomBus, RESUME_MAX_EVENTS, type RoomAction } from '../../../src/realtime/pg-bus.ts';
import { createLogger } from '../../../src/logger.ts';
import { startDevMediaServer, type DevMediaServer } from '../../../dev/media-server/server.ts';
import { startApiProcess, type ApiProcess } from '../../helpers/api-process.ts';
import { connectRaw, type RawSocket } from '../../helpers/raw-ws-client.ts';
import { connect, connectRefused, type TestSocket } from '../../helpers/ws-client.ts';

const ADMIN_KEY = 'test-admin-key-resume';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let media: DevMediaServer;
const apis: ApiProcess[] = [];
const sockets: TestSocket[] = [];
const raws: RawSocket[] = [];
let a: ApiProcess;
let b: ApiProcess;

const startApi = (name: string, env: Record<string, string> = {}) =>
  startApiProcess(db.url, { ADMIN_API_KEY: ADMIN_KEY, UPSTREAM_API_URL: media.url, ...env }, name).then((api) => (apis.push(api), api));

beforeAll(async () => {
  db = await createTestDatabase();
  media = await startDevMediaServer({ webhookSecret: 'test-resume-upstream-secret' });
  // One after the other: the first applies the migrations.
  a = await startApi('A');
  b = await startApi('B');
}, 90_000);

afterAll(async () => {
  for (const s of sockets) s.ws.terminate();
  for (const r of raws) r.destroy();
  for (const api of apis) await api.stop();
  const leaked = apis.map((api) => api.output()).join('').match(/"level":(50|60).*/g) ?? [];
  expect(leaked).toEqual([]); // no error was logged by any instance
  await media?.stop();
  await db?.drop();
});

type Numbered = ServerMessage & { seq: number };
const numbered = (messages: readonly unknown[]): Numbered[] =>
  (messages as ServerMessage[]).filter((m): m is Numbered => m.event !== 'room.snapshot' && 'seq' in m);
const chat = (text: string) => ({ event: 'chat.send', data: { text } });

async function eventually(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function setUp(name: string) {
  const tenant = (await a.call('POST', '/api/v1/tenants', { 'X-Admin-Key': ADMIN_KEY }, { name })).body.data;
  const key = { 'X-API-Key': tenant.api_key as string };
  const room = (await a.call('POST', '/api/v1/rooms', key, { name, config: { recording_enabled: true } })).body;
  const add = async (display_name: string, role = 'participant') =>
    (await b.call('POST', `/api/v1/rooms/${room.id}/participants`, key, { display_name, role })).body as {
      access_token: string;
      participant: { id: string };
    };
  return { key, room: room as { id: string }, add };
}

async function join(wsUrl: string, token: string): Promise<TestSocket> {
  const s = await connect(wsUrl, token);
  sockets.push(s);
  return s;
}

/** The events a member received, numbered, after `after`. */
const eventsAfter = (s: TestSocket, after: number) => numbered(s.received).filter((m) => m.seq > after);

test('a client cut mid-chat resumes on the other instance: every missed event once, in order, then live events', async () => {
  const { key, room, add } = await setUp('Resume');
  const [host, x, y] = [await add('Host', 'host'), await add('X'), await add('Y')];
  const h = await join(a.wsUrl, host.access_token);
  const first = await h.next('room.snapshot');
  expect(first.seq).toBe(1); // its own participant.joined
  const sy = await join(b.wsUrl, y.access_token);
  await sy.next('room.snapshot');

  // X, on A, chats with the others; it saw everything up to `last`.
  const sx = await connectRaw(a.wsUrl, x.access_token);
  raws.push(sx);
  await sx.first('room.snapshot');
  h.send(chat('before 1'));
  sx.send(chat('before 2'));
  await eventually(() => numbered(sx.messages).filter((m) => m.event === 'chat.message').length === 2, 'X to see both chats');
  const last = Math.max(...numbered(sx.messages).map((m) => m.seq));
  await eventually(() => eventsAfter(h, 0).some((m) => m.seq === last), 'the host to see them too');

  // Its TCP connection is cut, without a close frame. The others go on: chat from both instances, a raised hand, a
  // recording started and stopped; and A announces that X left.
  sx.destroy();
  for (let i = 0; i < 5; i++) {
    h.send(chat(`while away, from A ${i}`));
    sy.send(chat(`while away, from B ${i}`));
  }
  sy.send({ event: 'hand.raise' });
  const started = await a.call('POST', `/api/v1/rooms/${room.id}/recordings/start`, key);
  expect(started.status).toBe(201);
  expect((await b.call('POST', `/api/v1/rooms/${room.id}/recordings/stop`, key)).status).toBe(200);
  const missedBy = (s: TestSocket) => eventsAfter(s, last);
  const done = (s: TestSocket) =>
    ['chat.message', 'hand.raised', 'recording.started', 'recording.stopped', 'participant.left'].every((e) => missedBy(s).some((m) => m.event === e)) &&
    missedBy(s).filter((m) => m.event === 'chat.message').length === 10;
  await eventually(() => done(h) && done(sy), 'the room to go on without X');
  const missed = missedBy(h);
  expect(missed.find((m) => m.event === 'participant.left')).toMatchObject({ data: { id: x.participant.id } });
  // Both instances numbered the room's events alike.
  expect(missedBy(sy)).toEqual(missed);

  // X reconnects to B with resume_from while the host keeps chatting: what was sent live during the replay must
  // follow it, neither lost nor repeated.
  const resumed = join(`${b.wsUrl}?resume_from=${last}`, x.access_token);
  for (let i = 0; i < 3; i++) h.send(chat(`live ${i}`));
  const sx2 = await resumed;
  const live = (s: TestSocket) => eventsAfter(s, last).filter((m) => m.event === 'chat.message' && m.data.text.startsWith('live ')).length;
  await eventually(() => live(sx2) === 3 && live(h) === 3, 'the live chats');
  await eventually(() => eventsAfter(h, last).some((m) => m.event === 'participant.joined' && m.data.id === x.participant.id), 'X to rejoin');
  const got = sx2.unread();
  expect(got[0].event).not.toBe('room.snapshot'); // a resume starts with the missed events
  const seqs = numbered(got).map((m) => m.seq);
  expect(seqs).toEqual(seqs.map((_, i) => last + 1 + i)); // consecutive: no gap, no repeat
  expect(got.slice(0, missed.length)).toEqual(missed); // every missed event, as the others saw it
  // Then exactly what the room produced after, its own return included, as the host saw it.
  const hostAfter = eventsAfter(h, last);
  expect(numbered(got)).toEqual(hostAfter.slice(0, got.length));
  expect(got.length).toBe(hostAfter.length);
  expect(got.some((m) => m.event === 'participant.joined' && m.data.id === x.participant.id)).toBe(true);

  // The same with a first `resume` message (a client that cannot change its URL): the connection's snapshot is
  // ignored, and applying only the next seq gives every event after resume_from once, in order.
  const before = Math.max(...numbered(sx2.received).map((m) => m.seq));
  sx2.ws.terminate();
  await eventually(() => eventsAfter(h, before).some((m) => m.event === 'participant.left'), 'X to leave again');
  h.send(chat('away again'));
  await eventually(() => eventsAfter(h, before).some((m) => m.event === 'chat.message'), 'the chat while away');
  const sx3 = await join(a.wsUrl, x.access_token);
  sx3.send({ event: 'resume', data: { resume_from: before } });
  for (let i = 0; i < 3; i++) sy.send(chat(`live again ${i}`));
  await eventually(() => eventsAfter(h, before).filter((m) => m.event === 'chat.message').length === 4, 'the host to see the live chats');
  const hostAgain = eventsAfter(h, before);
  await eventually(() => numbered(sx3.received).some((m) => m.seq === hostAgain.at(-1)!.seq && m.event === hostAgain.at(-1)!.event), 'X to catch up');
  expect(sx3.received[0].event).toBe('room.snapshot');
  const applied: Numbered[] = [];
  let at = before;
  for (const m of numbered(sx3.received)) {
    if (m.seq !== at + 1) continue;
    applied.push(m);
    at = m.seq;
  }
  expect(applied).toEqual(eventsAfter(h, before).slice(0, applied.length));
  expect(applied.length).toBe(eventsAfter(h, before).length);
  expect(sx3.received.some((m) => m.event === 'resync_required' || m.event === 'error')).toBe(false);

  // `resume` later than first is refused; the connection stays open.
  sx3.send({ event: 'resume', data: { resume_from: 0 } });
  expect((await sx3.next('error')).data.code).toBe('INVALID_MESSAGE');
}, 120_000);

test('beyond the window: resync_required, then a fresh room.snapshot', async () => {
  const { key, room, add } = await setUp('Resync');
  const [host, x] = [await add('Host', 'host'), await add('X')];
  const h = await join(a.wsUrl, host.access_token);
  await h.next('room.snapshot');
  h.send({ event: 'hand.raise' });
  const raised = await h.next('hand.raised');

  // A seq the room has not reached.
  const future = await join(`${b.wsUrl}?resume_from=${raised.seq + 100}`, x.access_token);
  expect(await future.next()).toEqual({ event: 'resync_required', data: { resume_from: raised.seq + 100, reason: 'unknown' } });
  const snapshot = await future.next('room.snapshot');
  expect(snapshot).toMatchObject({ event: 'room.snapshot', seq: raised.seq + 1, data: { raised_hands: [host.participant.id] } });
  expect(snapshot.data.participants.map((p) => p.id)).toEqual([host.participant.id, x.participant.id]);
  h.send(chat('after the snapshot'));
  expect(await future.next()).toMatchObject({ event: 'chat.message', seq: snapshot.seq + 1 });
  await future.close();
  await h.next('participant.left');

  // Older than the window: an instance whose WS_RESUME_WINDOW is 1 s no longer sends events 2 s old; the one kept
  // 10 minutes still does.
  const c = await startApi('C', { WS_RESUME_WINDOW: '1s' });
  await new Promise((r) => setTimeout(r, 2000));
  const old = await join(`${c.wsUrl}?resume_from=${raised.seq}`, x.access_token);
  expect(await old.next()).toEqual({ event: 'resync_required', data: { resume_from: raised.seq, reason: 'expired' } });
  expect(await old.next()).toMatchObject({ event: 'room.snapshot' });
  await old.close();
  await h.next('participant.left');
  const kept = await join(`${b.wsUrl}?resume_from=${raised.seq}`, x.access_token);
  expect(await kept.next()).toMatchObject({ event: 'participant.joined', seq: raised.seq + 1, data: { id: x.participant.id } });
  await kept.close();
  await h.next('participant.left');
  await c.stop();

  // More than 1,000 events ago: a room keeps its last 1,000 (the trimmed are deleted), so an older seq is beyond the
  // window at once. The events are appended here the way a worker's are (a bus of its own on the same database).
  const bus = new PgRoomBus({ databaseUrl: db.url, logger: createLogger('silent') });
  try {
    const start = Number((await bus.pool.query('select event_seq from room_event_sequences where room_id = $1', [room.id])).rows[0].event_seq);
    const flip: RoomAction[] = Array.from({ length: 50 }, (_, i) => ({
      k: 'send',
      m: { event: i % 2 ? 'hand.lowered' : 'hand.raised', data: { participant_id: x.participant.id } },
    }));
    for (let i = 0; i < (RESUME_MAX_EVENTS + 50) / flip.length; i++) await bus.append(room.id, async () => ({ actions: flip, result: undefined }));
    const { rows } = await bus.pool.query('select count(*)::int as n, min(seq)::int as first, max(seq)::int as last from room_events where room_id = $1', [room.id]);
    expect(rows[0]).toEqual({ n: RESUME_MAX_EVENTS, first: rows[0].last - RESUME_MAX_EVENTS + 1, last: start + RESUME_MAX_EVENTS + 50 });
    const tooMany = await join(`${a.wsUrl}?resume_from=${start}`, x.access_token);
    expect(await tooMany.next()).toEqual({ event: 'resync_required', data: { resume_from: start, reason: 'expired' } });
    await tooMany.close();
    await h.next('participant.left');
    // The last 1,000 are still there to resume from (that socket's coming and going moved them on by two).
    const oldest = (await bus.pool.query('select min(seq)::int as first from room_events where room_id = $1', [room.id])).rows[0].first as number;
    expect(oldest).toBe(rows[0].first + 2);
    const within = await join(`${a.wsUrl}?resume_from=${oldest - 1}`, x.access_token);
    expect(await within.next()).toMatchObject({ seq: oldest });
    await within.close();
  } finally {
    await bus.close();
  }

  // A participant removed meanwhile is refused at the upgrade, resume or not; a resume_from that is not a number is 400.
  expect(await connectRefused(`${a.wsUrl}?resume_from=x`, host.access_token)).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_ERROR' } } });
  expect((await b.call('DELETE', `/api/v1/rooms/${room.id}/participants/${x.participant.id}`, key)).status).toBe(204);
  expect(await connectRefused(`${a.wsUrl}?resume_from=${raised.seq}`, x.access_token)).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
}, 120_000);
