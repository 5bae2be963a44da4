// The room WebSocket against the real app, database and sockets on a free port: refusals before the upgrade, the
// snapshot, presence, chat, hands, recording events, close codes and abuse limits. Every message a socket receives is
// checked against the AsyncAPI schemas by the test client (test/helpers/ws-client.ts).
import { CloseCode } from '../../../generated/asyncapi.ts';
import { addParticipant, createRoom, createTenant, patchConfig, type TenantFixture } from '../../helpers/fixtures.ts';
import { startRealtimeServer, type RealtimeServer } from '../../helpers/realtime-server.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';
import { connect, connectRefused, type TestSocket } from '../../helpers/ws-client.ts';

let t: TestApp;
let server: RealtimeServer;
let tenant: TenantFixture;
const open: TestSocket[] = [];

beforeAll(async () => {
  t = await createTestApp();
  server = await startRealtimeServer(t.services, { pingIntervalMs: 200, flood: { perSecond: 5, burst: 10 } });
  tenant = await createTenant(t);
});

afterEach(async () => {
  for (const socket of open.splice(0)) if (socket.ws.readyState === socket.ws.OPEN) await socket.close();
});

afterAll(async () => {
  await server.close();
  await t.close();
});

async function join(token: string, options: Parameters<typeof connect>[2] = {}): Promise<TestSocket> {
  const socket = await connect(server.wsUrl, token, options);
  open.push(socket);
  return socket;
}

async function roomWith(...roles: Array<'host' | 'participant' | 'viewer'>) {
  const room = await createRoom(t, tenant);
  const people = [];
  for (const [i, role] of roles.entries()) people.push(await addParticipant(t, tenant, room.id, { display_name: `P${i}`, role }));
  return { room, people };
}

async function activeIds(roomId: string): Promise<string[]> {
  const res = await t.request.get(`/api/v1/rooms/${roomId}/participants?active=true`).set(tenant.auth);
  expect(res.status).toBe(200);
  return (res.body.participants ?? res.body.data).map((p: { id: string }) => p.id).sort();
}

describe('refused before the upgrade, with the error envelope', () => {
  test('no token, a bad token and a token that is not a participant access token: 401 UNAUTHORIZED', async () => {
    const { people } = await roomWith('participant');
    for (const token of ['', 'not-a-jwt', people[0].auth_token, people[0].refresh_token]) {
      const refusal = await connectRefused(server.wsUrl, token);
      expect(refusal.status).toBe(401);
      expect(refusal.body.error.code).toBe('UNAUTHORIZED');
      expect(typeof refusal.body.error.request_id).toBe('string');
    }
  });

  test('an expired access token: 401 TOKEN_EXPIRED', async () => {
    const { room, people } = await roomWith('participant');
    const { token } = await t.services.tokens.issue(
      { sub: people[0].participant.id, typ: 'access', tenant_id: tenant.id, room_id: room.id, participant_id: people[0].participant.id, role: 'participant' },
      1,
    );
    await new Promise((r) => setTimeout(r, 2100));
    const refusal = await connectRefused(server.wsUrl, token);
    expect(refusal).toMatchObject({ status: 401, body: { error: { code: 'TOKEN_EXPIRED' } } });
  });

  test('an Origin outside the operator patterns, or outside the tenant allowed_origins once set: 403', async () => {
    const { people } = await roomWith('participant');
    const token = people[0].access_token;
    expect((await connectRefused(server.wsUrl, token, { origin: 'https://evil.example' })).status).toBe(403);
    const local = await join(token, { origin: 'http://localhost:5173' });
    await local.next('room.snapshot');

    const strict = await createTenant(t);
    await patchConfig(t, strict, { allowed_origins: ['https://app.example.com'] });
    const room = await createRoom(t, strict);
    const p = await addParticipant(t, strict, room.id);
    const refused = await connectRefused(server.wsUrl, p.access_token, { origin: 'http://localhost:5173' });
    expect(refused).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
    // The operator can see why a browser could not connect (without the token).
    const logged = t.logs().split('\n').find((line) => line.includes('WebSocket upgrade refused') && line.includes(refused.body.error.request_id));
    expect(logged).toContain('"origin":"http://localhost:5173"');
    expect(logged).not.toContain(p.access_token);
    const allowed = await join(p.access_token, { origin: 'https://app.example.com' });
    await allowed.next('room.snapshot');
    const noOrigin = await join(p.access_token);
    await noOrigin.next('room.snapshot');
  });

  test('an ended room or a removed participant: 404 NOT_FOUND', async () => {
    const { room, people } = await roomWith('host', 'participant');
    expect((await t.request.delete(`/api/v1/rooms/${room.id}/participants/${people[1].participant.id}`).set(tenant.auth)).status).toBe(204);
    expect(await connectRefused(server.wsUrl, people[1].access_token)).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect((await t.request.post(`/api/v1/rooms/${room.id}/end`).set(tenant.auth)).status).toBe(200);
    expect(await connectRefused(server.wsUrl, people[0].access_token)).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
  });
});

describe('a connection', () => {
  test('answers the convene subprotocol, starts with room.snapshot, and the deprecated ?token= still works', async () => {
    const { people } = await roomWith('host', 'participant');
    const a = await join(people[0].access_token);
    expect(a.ws.protocol).toBe('convene');
    const first = await a.next();
    // Its own arrival is the room's first event: the snapshot reflects it (seq 1), the next event is 2.
    expect(first).toEqual({
      event: 'room.snapshot',
      seq: 1,
      data: { participants: [{ id: people[0].participant.id, display_name: 'P0', role: 'host' }], raised_hands: [], recording: null },
    });
    const b = await join(people[1].access_token, { via: 'query' });
    expect((await b.next()).event).toBe('room.snapshot');
    expect(await a.next()).toEqual({ event: 'participant.joined', seq: 2, data: { id: people[1].participant.id, display_name: 'P1', role: 'participant' } });
  });

  test('presence drives ?active=true; the last socket closing announces participant.left', async () => {
    const { room, people } = await roomWith('host', 'participant');
    const a = await join(people[0].access_token);
    await a.next('room.snapshot');
    expect(await activeIds(room.id)).toEqual([people[0].participant.id]);
    const b1 = await join(people[1].access_token);
    const b2 = await join(people[1].access_token);
    await b1.next('room.snapshot');
    const snapshot = await b2.next('room.snapshot');
    expect(snapshot.data.participants.map((p) => p.id)).toEqual([people[0].participant.id, people[1].participant.id]);
    expect(await activeIds(room.id)).toEqual([people[0].participant.id, people[1].participant.id].sort());
    await a.next('participant.joined'); // once, although two sockets opened
    await b1.close();
    await b2.close();
    expect(await a.next()).toEqual({ event: 'participant.left', seq: expect.any(Number), data: { id: people[1].participant.id } });
    expect(await activeIds(room.id)).toEqual([people[0].participant.id]);
    expect(a.unread()).toEqual([]);
  });

  test('chat reaches every member, the sender included, and is stored', async () => {
    const { room, people } = await roomWith('host', 'participant');
    const a = await join(people[0].access_token);
    const b = await join(people[1].access_token);
    await a.next('room.snapshot');
    await b.next('room.snapshot');
    b.send({ event: 'chat.send', data: { text: 'Could you share the slides? 🙂' } });
    const atA = await a.next('chat.message');
    const atB = await b.next('chat.message');
    expect(atA).toEqual(atB);
    expect(atA.data).toMatchObject({ sender_id: people[1].participant.id, text: 'Could you share the slides? 🙂' });
    const stored = await t.services.orm.em.fork().getConnection().execute('select id, room_id, sender_id, text from chat_messages where id = ?', [atA.data.id]);
    expect(stored).toEqual([{ id: atA.data.id, room_id: room.id, sender_id: people[1].participant.id, text: 'Could you share the slides? 🙂' }]);
  });

  test('a burst of chat keeps its order, messages too long for one NOTIFY included', async () => {
    const { people } = await roomWith('host', 'participant');
    const a = await join(people[0].access_token);
    const b = await join(people[1].access_token);
    await a.next('room.snapshot');
    await b.next('room.snapshot');
    const texts = ['one', 'two', 'é'.repeat(4000), 'three', '日本語'.repeat(1333), 'four', 'five', 'six'];
    for (const text of texts) b.send({ event: 'chat.send', data: { text } });
    const received = [];
    for (const _ of texts) received.push((await a.next('chat.message')).data.text);
    expect(received).toEqual(texts);
  });

  test('a bad message gets an error event and the connection stays open', async () => {
    const { people } = await roomWith('participant');
    const a = await join(people[0].access_token);
    await a.next('room.snapshot');
    const cases: Array<[unknown, string]> = [
      ['{not json', 'INVALID_MESSAGE'],
      [[1, 2], 'INVALID_MESSAGE'],
      [{ event: 'chat.edit', data: {} }, 'UNKNOWN_EVENT'],
      [{ event: 'chat.send', data: { text: '' } }, 'INVALID_MESSAGE'],
      [{ event: 'chat.send', data: { text: 'x'.repeat(4001) } }, 'INVALID_MESSAGE'],
      [{ event: 'chat.send', data: { text: 'hi', extra: true } }, 'INVALID_MESSAGE'],
      [{ event: 'hand.raise', data: { why: 'me' } }, 'INVALID_MESSAGE'],
    ];
    for (const [message, code] of cases) {
      a.send(message);
      expect((await a.next()).data).toMatchObject({ code });
    }
    a.send({ event: 'chat.send', data: { text: '😀'.repeat(4000) } }); // 4000 code points is allowed
    expect((await a.next('chat.message')).data.text).toHaveLength(8000);
    a.send({ event: 'ping' });
    expect(await a.next()).toEqual({ event: 'pong', data: {} });
  });

  test('viewers cannot chat or raise a hand; chat_enabled false refuses chat with CHAT_DISABLED', async () => {
    const { people } = await roomWith('viewer');
    const v = await join(people[0].access_token);
    await v.next('room.snapshot');
    v.send({ event: 'chat.send', data: { text: 'hello' } });
    expect(await v.next()).toEqual({ event: 'error', data: { code: 'FORBIDDEN', message: expect.any(String) } });
    v.send({ event: 'hand.raise' });
    expect((await v.next()).data).toMatchObject({ code: 'FORBIDDEN' });

    const quiet = await createRoom(t, tenant, { config: { chat_enabled: false } });
    const p = await addParticipant(t, tenant, quiet.id);
    const s = await join(p.access_token);
    await s.next('room.snapshot');
    s.send({ event: 'chat.send', data: { text: 'hello' } });
    expect((await s.next()).data).toMatchObject({ code: 'CHAT_DISABLED' });
  });

  test('hands: raised and lowered once each, in the snapshot in raising order, lowered when the owner leaves', async () => {
    const { people } = await roomWith('host', 'participant', 'participant');
    const [a, b, c] = [await join(people[0].access_token), await join(people[1].access_token), await join(people[2].access_token)];
    for (const s of [a, b, c]) await s.next('room.snapshot');
    c.send({ event: 'hand.raise' });
    expect(await a.next('hand.raised')).toEqual({ event: 'hand.raised', seq: expect.any(Number), data: { participant_id: people[2].participant.id } });
    b.send({ event: 'hand.raise', data: {} });
    expect((await a.next('hand.raised')).data.participant_id).toBe(people[1].participant.id);
    b.send({ event: 'hand.raise' }); // already raised: nothing
    b.send({ event: 'ping' });
    await b.next('pong');

    const late = await join(people[0].access_token);
    expect((await late.next('room.snapshot')).data.raised_hands).toEqual([people[2].participant.id, people[1].participant.id]);

    b.send({ event: 'hand.lower' });
    expect(await a.next('hand.lowered')).toEqual({ event: 'hand.lowered', seq: expect.any(Number), data: { participant_id: people[1].participant.id } });
    await c.close();
    expect(await a.next('hand.lowered')).toEqual({ event: 'hand.lowered', seq: expect.any(Number), data: { participant_id: people[2].participant.id } });
    expect(await a.next()).toEqual({ event: 'participant.left', seq: expect.any(Number), data: { id: people[2].participant.id } });
  });

  test('recording.started and recording.stopped reach the room; the snapshot shows the recording in progress', async () => {
    const { room, people } = await roomWith('host');
    const a = await join(people[0].access_token);
    await a.next('room.snapshot');
    const recordingId = '0192f0a5-1b2c-7d3e-8f4a-5b6c7d8e9f0a';
    await t.services.orm.em.fork().getConnection().execute(
      `insert into recordings (id, tenant_id, room_id, status, started_at, deleted, created_at, updated_at)
       values (?, ?, ?, 'recording', now(), false, now(), now())`,
      [recordingId, tenant.id, room.id],
    );
    await t.services.events.publish({ type: 'recording.started', tenantId: tenant.id, roomId: room.id, recordingId, startedAt: new Date().toISOString() });
    expect(await a.next()).toEqual({ event: 'recording.started', seq: expect.any(Number), data: { recording_id: recordingId } });
    const b = await join(people[0].access_token);
    expect((await b.next('room.snapshot')).data.recording).toEqual({ recording_id: recordingId, started_at: expect.any(String) });
    await t.services.events.publish({ type: 'recording.stopped', tenantId: tenant.id, roomId: room.id, recordingId });
    expect(await a.next()).toEqual({ event: 'recording.stopped', seq: expect.any(Number), data: { recording_id: recordingId } });
  });
});

describe('close codes (docs/decisions.md §11)', () => {
  test('removal: participant.left to the others, 4003 to the removed one', async () => {
    const { room, people } = await roomWith('host', 'participant');
    const a = await join(people[0].access_token);
    const b = await join(people[1].access_token);
    await a.next('room.snapshot');
    await b.next('room.snapshot');
    await t.request.delete(`/api/v1/rooms/${room.id}/participants/${people[1].participant.id}`).set(tenant.auth).expect(204);
    expect((await b.closed).code).toBe(4003);
    expect(await a.next('participant.left')).toEqual({ event: 'participant.left', seq: expect.any(Number), data: { id: people[1].participant.id } });
    expect(await activeIds(room.id)).toEqual([people[0].participant.id]);
  });

  test('disconnect_existing: the old session gets participant.left then 4002', async () => {
    const policy = await createTenant(t);
    await patchConfig(t, policy, { duplicate_participant_policy: 'disconnect_existing' });
    const room = await createRoom(t, policy);
    const host = await addParticipant(t, policy, room.id, { role: 'host' });
    const first = await addParticipant(t, policy, room.id, { external_user_id: 'user-1' });
    const h = await join(host.access_token);
    const old = await join(first.access_token);
    await h.next('room.snapshot');
    await old.next('room.snapshot');
    const second = await addParticipant(t, policy, room.id, { external_user_id: 'user-1' });
    expect(await old.next('participant.left')).toEqual({ event: 'participant.left', seq: expect.any(Number), data: { id: first.participant.id } });
    expect((await old.closed).code).toBe(4002);
    expect((await h.next('participant.left')).data.id).toBe(first.participant.id);
    const fresh = await join(second.access_token);
    await fresh.next('room.snapshot');
  });

  test('room end: room.ended, then 4004', async () => {
    const { room, people } = await roomWith('host', 'participant');
    const a = await join(people[0].access_token);
    const b = await join(people[1].access_token);
    await a.next('room.snapshot');
    await b.next('room.snapshot');
    await t.request.post(`/api/v1/rooms/${room.id}/end`).set(tenant.auth).expect(200);
    for (const s of [a, b]) {
      expect(await s.next('room.ended')).toEqual({ event: 'room.ended', seq: expect.any(Number), data: { room_id: room.id, ended_at: expect.any(String) } });
      expect((await s.closed).code).toBe(4004);
    }
    expect(await activeIds(room.id)).toEqual([]);
  });

  test('room deletion: room.ended, then 4004', async () => {
    const { room, people } = await roomWith('host');
    const a = await join(people[0].access_token);
    await a.next('room.snapshot');
    await t.request.delete(`/api/v1/rooms/${room.id}`).set(tenant.auth).expect(204);
    expect(await a.next('room.ended')).toEqual({ event: 'room.ended', seq: expect.any(Number), data: { room_id: room.id, ended_at: expect.any(String) } });
    expect((await a.closed).code).toBe(4004);
    expect(await connectRefused(server.wsUrl, people[0].access_token)).toMatchObject({ status: 404 });
  });

  test('tenant deletion ends its active rooms as deleting a room does: room.ended, then 4004; new sockets refused', async () => {
    // docs/decisions.md §15: the rows go, and in the same transaction every active room's sockets are told and closed.
    const doomed = await createTenant(t, { name: 'Doomed' });
    const joined = [];
    for (const name of ['one', 'two']) {
      const room = await createRoom(t, doomed, { name });
      const person = await addParticipant(t, doomed, room.id, { display_name: name, role: 'host' });
      const socket = await join(person.access_token);
      await socket.next('room.snapshot');
      joined.push({ room, person, socket });
    }
    await t.request.delete(`/api/v1/tenants/${doomed.id}`).set(doomed.auth).expect(200);
    for (const { room, person, socket } of joined) {
      expect(await socket.next('room.ended')).toEqual({ event: 'room.ended', seq: expect.any(Number), data: { room_id: room.id, ended_at: expect.any(String) } });
      expect((await socket.closed).code).toBe(4004);
      expect((await connectRefused(server.wsUrl, person.access_token)).status).toBeGreaterThanOrEqual(400);
    }
  });

  test('removal and room end reach the sockets with the change itself: nothing rides on the in-process event bus', async () => {
    // What must happen commits with the change (docs/architecture.md habit 14): the presence cleanup and the sockets'
    // notice commit in the service's own transaction. With the bus publishing nothing (as after a crash between commit
    // and publish), the removed socket still closes and the room's end still closes the rest, and presence agrees.
    const events = t.services.events;
    events.publish = async () => {};
    try {
      const { room, people } = await roomWith('host', 'participant');
      const a = await join(people[0].access_token);
      const b = await join(people[1].access_token);
      await a.next('room.snapshot');
      await b.next('room.snapshot');
      await t.request.delete(`/api/v1/rooms/${room.id}/participants/${people[1].participant.id}`).set(tenant.auth).expect(204);
      expect((await b.closed).code).toBe(4003);
      expect(await a.next('participant.left')).toEqual({ event: 'participant.left', seq: expect.any(Number), data: { id: people[1].participant.id } });
      expect(await activeIds(room.id)).toEqual([people[0].participant.id]);
      await t.request.post(`/api/v1/rooms/${room.id}/end`).set(tenant.auth).expect(200);
      expect((await a.next('room.ended')).data.room_id).toBe(room.id);
      expect((await a.closed).code).toBe(4004);
      expect(await activeIds(room.id)).toEqual([]);
    } finally {
      delete (events as { publish?: unknown }).publish; // back to the prototype's
    }
  });

  test('flooding is closed with 1008; a frame over maxPayload is refused (1009)', async () => {
    const { people } = await roomWith('participant');
    const a = await join(people[0].access_token);
    await a.next('room.snapshot');
    for (let i = 0; i < 40; i++) a.send({ event: 'ping' });
    expect((await a.closed).code).toBe(1008);
    const b = await join(people[0].access_token);
    await b.next('room.snapshot');
    b.send({ event: 'chat.send', data: { text: 'x'.repeat(200_000) } });
    expect((await b.closed).code).toBe(CloseCode.MESSAGE_TOO_BIG);
  });

  test('a peer that stops answering pings is dropped and leaves the room', async () => {
    const { room, people } = await roomWith('host', 'participant');
    const a = await join(people[0].access_token);
    const dead = await join(people[1].access_token);
    await a.next('room.snapshot');
    await dead.next('room.snapshot');
    // The peer's process hangs: it stops reading, so it never answers a ping.
    (dead.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    expect(await a.next('participant.left', 5000)).toEqual({ event: 'participant.left', seq: expect.any(Number), data: { id: people[1].participant.id } });
    expect(await activeIds(room.id)).toEqual([people[0].participant.id]);
    dead.ws.terminate();
  });
});

describe('losing the LISTEN connection', () => {
  test('sockets are closed with 1001 (they may have missed events), new ones are refused with 503 until the bus is back', async () => {
    const { people } = await roomWith('host', 'participant');
    const a = await join(people[0].access_token);
    await a.next('room.snapshot');
    await t.services.orm.em.fork().getConnection().execute(`select pg_terminate_backend(pid) from pg_stat_activity where query like 'LISTEN convene_room_events%' and datname = current_database()`);
    expect((await a.closed).code).toBe(1001);

    // Right after the loss (the bus retries a second later), a new socket would miss events: refused.
    const refused = await connectRefused(server.wsUrl, people[0].access_token);
    expect([refused.status, refused.body.error.code, refused.headers['retry-after']]).toEqual([503, 'SERVICE_UNAVAILABLE', '1']);
    let again: TestSocket | undefined;
    for (let i = 0; i < 50 && !again; i++) {
      await new Promise((r) => setTimeout(r, 100));
      if (!t.services.roomBus.listening) continue;
      const s = await join(people[0].access_token);
      await s.next('room.snapshot');
      const other = await join(people[1].access_token);
      await other.next('room.snapshot');
      // Events flow again once the listener is back.
      const seen = await s.next('participant.joined', 1500).then(() => true, () => false);
      if (seen) again = s;
      else {
        await s.close();
        await other.close();
      }
    }
    expect(again).toBeDefined();
  });
});
