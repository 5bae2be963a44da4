import { addParticipant, createRoom, createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Every room and participant route, called with another tenant's credentials: 404 with nothing of the victim's data,
// and the victim's data unchanged.
let t: TestApp;
let victim: TenantFixture;
let intruder: TenantFixture;
let room: { id: string; name: string };
let participantId: string;

beforeAll(async () => {
  t = await createTestApp();
  victim = await createTenant(t, { name: 'Victim' });
  intruder = await createTenant(t, { name: 'Intruder' });
  room = await createRoom(t, victim, { name: 'secret-board-meeting' });
  participantId = (await addParticipant(t, victim, room.id, { display_name: 'Secret Person' })).participant.id;
});
afterAll(async () => {
  await t.close();
});

const snapshot = () => t.services.orm.em.fork().getConnection().execute('select r.*, (select json_agg(p order by p.id) from participants p where p.room_id = r.id) as ps from rooms r where r.id = ?', [room.id]);

test.each(['id', 'name'] as const)('every room and participant route answers 404 by room %s', async (by) => {
  const ref = by === 'id' ? room.id : room.name;
  const before = await snapshot();
  const as = intruder.auth;
  const calls = [
    t.request.get(`/api/v1/rooms/${ref}`).set(as),
    t.request.patch(`/api/v1/rooms/${ref}`).set(as).send({ name: 'mine' }),
    t.request.delete(`/api/v1/rooms/${ref}`).set(as),
    t.request.post(`/api/v1/rooms/${ref}/end`).set(as),
    t.request.get(`/api/v1/rooms/${ref}/participants`).set(as),
    t.request.post(`/api/v1/rooms/${ref}/participants/bulk`).set(as).send({ participants: [{ display_name: 'x' }] }),
    t.request.delete(`/api/v1/rooms/${ref}/participants/${participantId}`).set(as),
    t.request.post(`/api/v1/rooms/${ref}/participants/${participantId}/token`).set(as),
  ];
  if (by === 'id') calls.push(t.request.post(`/api/v1/rooms/${ref}/participants`).set(as).send({ display_name: 'x' }));
  for (const res of await Promise.all(calls)) {
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    const text = JSON.stringify(res.body);
    expect(text).not.toContain('secret-board-meeting');
    expect(text).not.toContain('Secret Person');
  }
  expect(await snapshot()).toEqual(before);
});

test("adding by the victim's room name early-joins a room of the intruder's own, never the victim's", async () => {
  const res = await t.request.post(`/api/v1/rooms/${room.name}/participants`).set(intruder.auth).send({ display_name: 'x' });
  expect(res.status).toBe(201);
  expect(res.body.room_created).toBe(true);
  expect(res.body.room.id).not.toBe(room.id);
});

test('lists show only the caller’s rooms', async () => {
  const list = await t.request.get('/api/v1/rooms').set(intruder.auth);
  expect(list.body.rooms.map((r: { id: string }) => r.id)).not.toContain(room.id);
});

test("a participant of another tenant's room cannot reach this room", async () => {
  const theirRoom = await createRoom(t, intruder);
  const p = await addParticipant(t, intruder, theirRoom.id, { role: 'host' });
  const res = await t.request.get(`/api/v1/rooms/${room.id}`).set('Authorization', `Bearer ${p.auth_token}`);
  expect(res.status).toBe(404);
});
