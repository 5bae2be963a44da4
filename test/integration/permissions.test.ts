import { addParticipant, bearer, createRoom, createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// docs/decisions.md §4: a participant's auth_token may read its own room and participant list and reissue its own tokens;
// a host may also start/stop recording, remove participants and end its own room. Everything else: 403 (or 404 for
// another room, which a participant must not learn about). Checked here cell by cell.

let t: TestApp;
let tenant: TenantFixture;
let room: { id: string; name: string };
let otherRoom: { id: string };
const tokens: Record<'host' | 'participant' | 'viewer', { auth: string; access: string; id: string }> = {} as never;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t);
  room = await createRoom(t, tenant);
  otherRoom = await createRoom(t, tenant);
  for (const role of ['host', 'participant', 'viewer'] as const) {
    const p = await addParticipant(t, tenant, room.id, { display_name: role, role });
    tokens[role] = { auth: p.auth_token, access: p.access_token, id: p.participant.id };
  }
});
afterAll(async () => {
  await t.close();
});

type Call = (as: Record<string, string>) => Promise<{ status: number }>;
const victim = async () => (await addParticipant(t, tenant, room.id, { display_name: 'victim' })).participant.id;

const operations: Array<[string, Call, { host: number; participant: number; viewer: number }]> = [
  ['getRoom', (h) => t.request.get(`/api/v1/rooms/${room.id}`).set(h), { host: 200, participant: 200, viewer: 200 }],
  ['getRoom by name', (h) => t.request.get(`/api/v1/rooms/${room.name}`).set(h), { host: 200, participant: 200, viewer: 200 }],
  ['listParticipants', (h) => t.request.get(`/api/v1/rooms/${room.id}/participants`).set(h), { host: 200, participant: 200, viewer: 200 }],
  ['updateRoom', (h) => t.request.patch(`/api/v1/rooms/${room.id}`).set(h).send({ name: 'x' }), { host: 403, participant: 403, viewer: 403 }],
  ['deleteRoom', (h) => t.request.delete(`/api/v1/rooms/${room.id}`).set(h), { host: 403, participant: 403, viewer: 403 }],
  ['listRooms', (h) => t.request.get('/api/v1/rooms').set(h), { host: 403, participant: 403, viewer: 403 }],
  ['createRoom', (h) => t.request.post('/api/v1/rooms').set(h).send({ name: 'new' }), { host: 403, participant: 403, viewer: 403 }],
  ['addParticipant', (h) => t.request.post(`/api/v1/rooms/${room.id}/participants`).set(h).send({ display_name: 'x' }), { host: 403, participant: 403, viewer: 403 }],
  ['bulkAddParticipants', (h) => t.request.post(`/api/v1/rooms/${room.id}/participants/bulk`).set(h).send({ participants: [{ display_name: 'x' }] }), { host: 403, participant: 403, viewer: 403 }],
  ['removeParticipant', async (h) => t.request.delete(`/api/v1/rooms/${room.id}/participants/${await victim()}`).set(h), { host: 204, participant: 403, viewer: 403 }],
  ['getRoom of another room', (h) => t.request.get(`/api/v1/rooms/${otherRoom.id}`).set(h), { host: 404, participant: 404, viewer: 404 }],
  ['getTenant', (h) => t.request.get(`/api/v1/tenants/${tenant.id}`).set(h), { host: 403, participant: 403, viewer: 403 }],
];

describe.each(['host', 'participant', 'viewer'] as const)('a %s auth_token', (role) => {
  test.each(operations)('%s', async (_name, call, expected) => {
    const res = await call(bearer(tokens[role].auth));
    expect(res.status).toBe(expected[role]);
  });

  test('reissues its own tokens, not another participant’s', async () => {
    const own = await t.request.post(`/api/v1/rooms/${room.id}/participants/${tokens[role].id}/token`).set(bearer(tokens[role].auth));
    expect(own.status).toBe(200);
    const other = role === 'viewer' ? tokens.host.id : tokens.viewer.id;
    const foreign = await t.request.post(`/api/v1/rooms/${room.id}/participants/${other}/token`).set(bearer(tokens[role].auth));
    expect(foreign.status).toBe(403);
  });

  test('its access_token (for the WebSocket) cannot call the API', async () => {
    const res = await t.request.get(`/api/v1/rooms/${room.id}`).set(bearer(tokens[role].access));
    expect(res.status).toBe(401);
  });
});

test('a host ends its own room (last, since it ends the room)', async () => {
  const guest = await addParticipant(t, tenant, room.id, { display_name: 'guest' });
  expect((await t.request.post(`/api/v1/rooms/${room.id}/end`).set(bearer(guest.auth_token))).status).toBe(403);
  const res = await t.request.post(`/api/v1/rooms/${room.id}/end`).set(bearer(tokens.host.auth));
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('ended');
});
