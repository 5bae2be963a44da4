// Closed doors (docs/decisions.md §16): from the moment a removal, a replacement, a room's end or deletion or a tenant's
// deletion answers, nothing that participant's sockets send reaches the room or the database, also from a client
// that never answers the close frame, and such a socket is destroyed within 5 s. And the WebSocket message rate counts
// the participant: its sockets share one budget.
import { v7 as uuidv7 } from 'uuid';
import { CloseCode, type ServerMessage } from '../../../generated/asyncapi.ts';
import type { RoomAction, RoomBatch } from '../../../src/realtime/pg-bus.ts';
import { RoomCommands, type Occupant } from '../../../src/realtime/room-commands.ts';
import { addParticipant, createRoom, createTenant, patchConfig, type TenantFixture } from '../../helpers/fixtures.ts';
import { connectRaw, type RawSocket } from '../../helpers/raw-ws-client.ts';
import { startRealtimeServer, type RealtimeServer } from '../../helpers/realtime-server.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';
import { connect, type TestSocket } from '../../helpers/ws-client.ts';

/** A budget two sockets exhaust together and one alone does not; it refills by nothing worth counting during a test. */
const FLOOD = { perSecond: 0.01, burst: 25 };
/** Generous beside the 5 s promised, and well short of the 30 s `ws` would wait on its own. */
const CUT_WITHIN_MS = 15_000;

let t: TestApp;
let server: RealtimeServer;
let tenant: TenantFixture;
const open: TestSocket[] = [];
const raws: RawSocket[] = [];

beforeAll(async () => {
  t = await createTestApp();
  server = await startRealtimeServer(t.services, { flood: FLOOD });
  tenant = await createTenant(t);
}, 60_000);

afterEach(async () => {
  for (const socket of open.splice(0)) if (socket.ws.readyState === socket.ws.OPEN) await socket.close();
  for (const raw of raws.splice(0)) raw.destroy();
});

afterAll(async () => {
  await server?.close();
  await t?.close();
});

async function join(token: string): Promise<TestSocket> {
  const socket = await connect(server.wsUrl, token);
  open.push(socket);
  await socket.next('room.snapshot');
  return socket;
}

async function joinRaw(token: string): Promise<RawSocket> {
  const raw = await connectRaw(server.wsUrl, token);
  raws.push(raw);
  await raw.first('room.snapshot');
  return raw;
}

const chat = (text: string) => ({ event: 'chat.send', data: { text } });
/** What a client that ignores the door sends at once: 20 chat messages and a raised hand. */
const THROUGH_THE_DOOR = [...Array.from({ length: 20 }, (_, i) => chat(`through the door ${i}`)), { event: 'hand.raise', data: {} }];
const BEFORE = chat('before the door closed');

async function count(sql: string, params: unknown[]): Promise<number> {
  const { rows } = await t.services.roomBus.pool.query<{ n: number }>(`select count(*)::int as n from ${sql}`, params);
  return rows[0].n;
}
const chatsFrom = (participantId: string) => count('chat_messages where sender_id = $1', [participantId]);
const chatsThroughTheDoor = (participantId: string) => count(`chat_messages where sender_id = $1 and text like 'through the door %'`, [participantId]);
const handsOf = (participantId: string) => count('raised_hands where participant_id = $1', [participantId]);

/** Everything the member hears until its own marker comes back: the marker follows whatever the room produced before. */
async function heardUntilMarker(socket: TestSocket): Promise<ServerMessage[]> {
  const marker = `marker ${uuidv7()}`;
  socket.send(chat(marker));
  const heard: ServerMessage[] = [];
  for (;;) {
    const message = await socket.next();
    if (message.event === 'chat.message' && message.data.text === marker) return heard;
    heard.push(message);
  }
}

const roomTraffic = (messages: ServerMessage[]) => messages.filter((m) => m.event === 'chat.message' || m.event === 'hand.raised');

describe('a client that never answers the close frame', () => {
  test('removed: after the 204 nothing it sends reaches the room or the database, and the server cuts it', async () => {
    const room = await createRoom(t, tenant);
    const host = await addParticipant(t, tenant, room.id, { display_name: 'Host', role: 'host' });
    const intruder = await addParticipant(t, tenant, room.id, { display_name: 'Intruder' });
    const watcher = await join(host.access_token);
    const raw = await joinRaw(intruder.access_token);
    expect((await watcher.next('participant.joined')).data.id).toBe(intruder.participant.id);
    // While it is a member, the raw client's chat does reach the room: what follows is not silence for another reason.
    raw.send(BEFORE);
    expect((await watcher.next('chat.message')).data).toMatchObject({ sender_id: intruder.participant.id, text: BEFORE.data.text });

    await t.request.delete(`/api/v1/rooms/${room.id}/participants/${intruder.participant.id}`).set(tenant.auth).expect(204);
    for (const message of THROUGH_THE_DOOR) raw.send(message);

    await raw.closedByServer(CUT_WITHIN_MS);
    expect(raw.closeCode).toBe(CloseCode.PARTICIPANT_REMOVED);
    const heard = await heardUntilMarker(watcher);
    expect(heard).toContainEqual({ event: 'participant.left', seq: expect.any(Number), data: { id: intruder.participant.id } });
    expect(roomTraffic(heard)).toEqual([]);
    expect(await chatsThroughTheDoor(intruder.participant.id)).toBe(0);
    expect(await chatsFrom(intruder.participant.id)).toBe(1);
    expect(await handsOf(intruder.participant.id)).toBe(0);
  });

  test('room ended: after the 200 nothing it sends reaches the room or the database, and the server cuts it', async () => {
    const room = await createRoom(t, tenant);
    const host = await addParticipant(t, tenant, room.id, { display_name: 'Host', role: 'host' });
    const intruder = await addParticipant(t, tenant, room.id, { display_name: 'Intruder' });
    const watcher = await join(host.access_token);
    const raw = await joinRaw(intruder.access_token);
    expect((await watcher.next('participant.joined')).data.id).toBe(intruder.participant.id);

    await t.request.post(`/api/v1/rooms/${room.id}/end`).set(tenant.auth).expect(200);
    for (const message of THROUGH_THE_DOOR) raw.send(message);

    await raw.closedByServer(CUT_WITHIN_MS);
    expect(raw.closeCode).toBe(CloseCode.ROOM_ENDED);
    expect((await watcher.closed).code).toBe(CloseCode.ROOM_ENDED);
    expect(watcher.unread().map((m) => m.event)).toEqual(['room.ended']);
    expect(await count('chat_messages where room_id = $1', [room.id])).toBe(0);
    expect(await count('raised_hands where room_id = $1', [room.id])).toBe(0);
  });
});

describe('an instance that has not heard yet that the door closed (its socket still open) stores and announces nothing', () => {
  interface Door {
    tenant: TenantFixture;
    room: { id: string };
    participantId: string;
    commands: RoomCommands;
    occupant: Occupant;
  }
  const doors: Array<[string, (door: Door) => Promise<unknown>]> = [
    ['removed', ({ tenant, room, participantId }) => t.request.delete(`/api/v1/rooms/${room.id}/participants/${participantId}`).set(tenant.auth).expect(204)],
    ['replaced by a duplicate (disconnect_existing)', ({ tenant, room }) => addParticipant(t, tenant, room.id, { external_user_id: 'same-person' })],
    ['displaced by a newer socket of its own (over the socket cap)', ({ commands, occupant }) => commands.join({ ...occupant, connectionId: uuidv7() })],
    ['room ended', ({ tenant, room }) => t.request.post(`/api/v1/rooms/${room.id}/end`).set(tenant.auth).expect(200)],
    ['room deleted', ({ tenant, room }) => t.request.delete(`/api/v1/rooms/${room.id}`).set(tenant.auth).expect(204)],
    ['tenant deleted', ({ tenant }) => t.request.delete(`/api/v1/tenants/${tenant.id}`).set(tenant.auth).expect(200)],
  ];

  test.each(doors)('%s', async (_name, closeDoor) => {
    const own = await createTenant(t, { name: 'Door' });
    await patchConfig(t, own, { duplicate_participant_policy: 'disconnect_existing' });
    const room = await createRoom(t, own);
    const person = await addParticipant(t, own, room.id, { external_user_id: 'same-person' });
    const participantId = person.participant.id;
    // Another instance's commands, holding this participant's socket: what it sends goes straight to the room.
    const commands = new RoomCommands({
      bus: t.services.roomBus,
      timer: t.services.emptyRoomTimer,
      instanceId: uuidv7(),
      maxSocketsPerParticipant: 1,
      staleAfterSeconds: t.config.ws.presenceStaleAfterSeconds,
    });
    const occupant: Occupant = { tenantId: own.id, roomId: room.id, participantId, role: 'participant', expiresAt: Date.now() + 3_600_000, connectionId: uuidv7() };
    expect(await commands.join(occupant)).toMatchObject({ ok: true });
    const heard: RoomBatch[] = [];
    const unsubscribe = t.services.roomBus.subscribe((batch) => {
      if (batch.roomId === room.id) heard.push(batch);
    });
    const announced = () => heard.flatMap((b) => b.actions.flatMap((a) => (a.k === 'send' ? [a.m] : [])));
    try {
      // Before the door closes, what it sends is stored and announced: the silence below has no other cause.
      const replies: ServerMessage[] = [];
      expect(await commands.handle(occupant, [JSON.stringify(BEFORE)], (m) => replies.push(m))).toBe(true);
      expect(await chatsFrom(participantId)).toBe(1);
      await eventually(() => roomTraffic(announced()).length === 1);
      heard.length = 0;

      await closeDoor({ tenant: own, room, participantId, commands, occupant });
      const handled = await commands.handle(occupant, THROUGH_THE_DOOR.map((m) => JSON.stringify(m)), (m) => replies.push(m));
      expect(handled).toBe(false);
      expect(replies).toEqual([]);
      expect(await chatsThroughTheDoor(participantId)).toBe(0);
      expect(await handsOf(participantId)).toBe(0);
      // A batch appended now is heard after anything the room announced before it (one that closes no socket).
      const marker: RoomAction = { k: 'drop', c: [], code: CloseCode.REPLACED_BY_NEWER_SOCKET, reason: 'marker' };
      const { seq } = await t.services.roomBus.append(room.id, async () => ({ actions: [marker], result: undefined }));
      await eventually(() => heard.some((b) => b.seq === seq));
      expect(roomTraffic(announced())).toEqual([]);
    } finally {
      unsubscribe();
    }
  });
});

describe('the message rate counts the participant, not the socket', () => {
  test('two sockets of one participant share one budget; another participant has its own', async () => {
    const room = await createRoom(t, tenant);
    const ada = await addParticipant(t, tenant, room.id, { display_name: 'Ada' });
    const bo = await addParticipant(t, tenant, room.id, { display_name: 'Bo' });
    const first = await join(ada.access_token);
    const second = await join(ada.access_token);
    const other = await join(bo.access_token);
    const pings = async (socket: TestSocket, n: number) => {
      for (let i = 0; i < n; i++) socket.send({ event: 'ping' });
      for (let i = 0; i < n; i++) await socket.next('pong');
    };
    // 15 messages are within the burst of 25 for one socket alone...
    await pings(first, 15);
    // ...but the same participant's second socket draws from what is left: 15 more go beyond, and it is closed 1008.
    const answered = await pings(second, 15).then(
      () => 'all 15 answered',
      () => 'closed first',
    );
    expect(answered).toBe('closed first');
    expect((await second.closed).code).toBe(CloseCode.POLICY_VIOLATION);
    // Another participant in the same room has a budget of its own.
    await pings(other, 15);
  });
});

/** Waits for a condition that another connection makes true (a notification), up to a generous limit. */
async function eventually(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
