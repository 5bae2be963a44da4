import { validate as isUuid } from 'uuid';
import { addParticipant, createRoom, createTenant, patchConfig, type TenantFixture } from '../helpers/fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let tenant: TenantFixture;
beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t, { max_participants_per_room: 25 });
});
afterAll(async () => {
  await t.close();
});

test('create returns the bare room with config defaults from the tenant', async () => {
  const res = await t.request.post('/api/v1/rooms').set(tenant.auth).send({ name: 'biology-101' });
  expect(res.status).toBe(201);
  expect(res.body).toEqual({
    id: expect.any(String),
    name: 'biology-101',
    status: 'active',
    config: { max_participants: 25, recording_enabled: false, chat_enabled: true },
    created_at: expect.any(String),
  });
  expect(isUuid(res.body.id)).toBe(true);
});

test('names: 1–100 characters, not a UUID, unique among active rooms only', async () => {
  for (const name of ['', 'x'.repeat(101), '0190f3a2-7b1c-7def-8000-123456789abc']) {
    const res = await t.request.post('/api/v1/rooms').set(tenant.auth).send({ name });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  }
  const first = await createRoom(t, tenant, { name: 'weekly' });
  const clash = await t.request.post('/api/v1/rooms').set(tenant.auth).send({ name: 'weekly' });
  expect(clash.status).toBe(409);
  expect(clash.body.error.code).toBe('ROOM_NAME_TAKEN');
  await t.request.post(`/api/v1/rooms/${first.id}/end`).set(tenant.auth).expect(200);
  const again = await createRoom(t, tenant, { name: 'weekly' });
  expect(again.id).not.toBe(first.id);
  // A name resolves to the active room first.
  expect((await t.request.get('/api/v1/rooms/weekly').set(tenant.auth)).body.id).toBe(again.id);
  // Another tenant may use the same name.
  const other = await createTenant(t);
  await createRoom(t, other, { name: 'weekly' });
});

test('a name resolves to the newest ended room when none is active', async () => {
  const older = await createRoom(t, tenant, { name: 'archive-me' });
  await t.request.post(`/api/v1/rooms/${older.id}/end`).set(tenant.auth).expect(200);
  const newer = await createRoom(t, tenant, { name: 'archive-me' });
  await t.request.post(`/api/v1/rooms/${newer.id}/end`).set(tenant.auth).expect(200);
  expect((await t.request.get('/api/v1/rooms/archive-me').set(tenant.auth)).body.id).toBe(newer.id);
});

test('max_participants above the tenant limit is 409 LIMIT_EXCEEDED naming the limit', async () => {
  const res = await t.request.post('/api/v1/rooms').set(tenant.auth).send({ name: 'huge', config: { max_participants: 26 } });
  expect(res.status).toBe(409);
  expect(res.body.error).toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 'max_participants_per_room', max: 25 } });
});

test('force_recording turns recording on and keeps it on', async () => {
  const forced = await createTenant(t);
  await patchConfig(t, forced, { force_recording: true });
  const room = await createRoom(t, forced, { config: { recording_enabled: false } });
  expect(room.config.recording_enabled).toBe(true);
  const off = await t.request.patch(`/api/v1/rooms/${room.id}`).set(forced.auth).send({ config: { recording_enabled: false } });
  expect(off.status).toBe(400);
});

test('get and list include participant_count; list paginates within bounds', async () => {
  const lister = await createTenant(t);
  const rooms = [];
  for (let i = 0; i < 5; i++) rooms.push(await createRoom(t, lister, { name: `list-${i}` }));
  await addParticipant(t, lister, rooms[4].id);
  await addParticipant(t, lister, rooms[4].id, { display_name: 'Bob' });

  const got = await t.request.get(`/api/v1/rooms/${rooms[4].id}`).set(lister.auth);
  expect(got.body).toMatchObject({ id: rooms[4].id, participant_count: 2 });

  const page = await t.request.get('/api/v1/rooms?limit=2&offset=0').set(lister.auth);
  expect(page.status).toBe(200);
  expect(page.body).toMatchObject({ total: 5, limit: 2, offset: 0 });
  expect(page.body.rooms.map((r: { name: string }) => r.name)).toEqual(['list-4', 'list-3']);
  expect(page.body.rooms[0].participant_count).toBe(2);
  const last = await t.request.get('/api/v1/rooms?limit=2&offset=4').set(lister.auth);
  expect(last.body.rooms.map((r: { name: string }) => r.name)).toEqual(['list-0']);
  const defaults = await t.request.get('/api/v1/rooms').set(lister.auth);
  expect(defaults.body).toMatchObject({ limit: 20, offset: 0 });

  for (const query of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc', 'page=2']) {
    const res = await t.request.get(`/api/v1/rooms?${query}`).set(lister.auth);
    expect({ query, status: res.status }).toEqual({ query, status: 400 });
  }
});

test('patch is partial: config fields not sent keep their values', async () => {
  const room = await createRoom(t, tenant, { config: { max_participants: 5, chat_enabled: false } });
  const res = await t.request.patch(`/api/v1/rooms/${room.id}`).set(tenant.auth).send({ config: { recording_enabled: true } });
  expect(res.status).toBe(200);
  expect(res.body.config).toEqual({ max_participants: 5, recording_enabled: true, chat_enabled: false });
  const renamed = await t.request.patch(`/api/v1/rooms/${room.id}`).set(tenant.auth).send({ name: 'renamed-room' });
  expect(renamed.body).toMatchObject({ name: 'renamed-room', config: { max_participants: 5 } });
});

test('end is idempotent, sets ended_at, and makes the room read-only', async () => {
  const room = await createRoom(t, tenant);
  await t.request.post(`/api/v1/rooms/${room.id}/participants`).set(tenant.auth).send({ display_name: 'Early', external_user_id: 'u-1' }).expect(201);
  const ended = await t.request.post(`/api/v1/rooms/${room.id}/end`).set(tenant.auth);
  expect(ended.status).toBe(200);
  expect(ended.body).toMatchObject({ status: 'ended', ended_at: expect.any(String) });
  const again = await t.request.post(`/api/v1/rooms/${room.id}/end`).set(tenant.auth);
  expect(again.body.ended_at).toBe(ended.body.ended_at);

  const patch = await t.request.patch(`/api/v1/rooms/${room.id}`).set(tenant.auth).send({ name: 'nope' });
  expect(patch.status).toBe(409);
  expect(patch.body.error.code).toBe('ROOM_ENDED');
  const join = await t.request.post(`/api/v1/rooms/${room.id}/participants`).set(tenant.auth).send({ display_name: 'Late' });
  expect(join.status).toBe(409);
  expect(join.body.error.code).toBe('ROOM_ENDED');
  // The room's end answers first, before the duplicate policy (reject) would.
  const duplicate = await t.request.post(`/api/v1/rooms/${room.id}/participants`).set(tenant.auth).send({ display_name: 'Early', external_user_id: 'u-1' });
  expect(duplicate.body.error.code).toBe('ROOM_ENDED');
  // The record is preserved.
  expect((await t.request.get(`/api/v1/rooms/${room.id}`).set(tenant.auth)).body.status).toBe('ended');
});

test('delete is permanent: 204, then 404, rows gone', async () => {
  const room = await createRoom(t, tenant);
  await addParticipant(t, tenant, room.id);
  const res = await t.request.delete(`/api/v1/rooms/${room.id}`).set(tenant.auth);
  expect(res.status).toBe(204);
  expect(res.text).toBe('');
  expect((await t.request.get(`/api/v1/rooms/${room.id}`).set(tenant.auth)).status).toBe(404);
  const rows = await t.services.orm.em.fork().getConnection().execute('select count(*)::int as n from participants where room_id = ?', [room.id]);
  expect(rows[0].n).toBe(0);
});

test('a room named in characters beyond the BMP (two UTF-16 units each), longer than a run summary keeps: Delete Room answers 204, the summary cut between characters', async () => {
  // Found by the fuzzer: the summary recorded for the room's recording-stop run was cut inside a surrogate pair, and
  // PostgreSQL refused the lone half (the hand-over row is jsonb), so Delete Room answered 500.
  const name = '𝓣𝓱𝓮 𝓺𝓾𝓲𝓬𝓴 𝓫𝓻𝓸𝔀𝓷 𝓯𝓸𝔁 '.repeat(4).trim(); // 63 characters, 126 UTF-16 units
  const room = await createRoom(t, tenant, { name });
  await t.request.delete(`/api/v1/rooms/${room.id}`).set(tenant.auth).expect(204);
  const rows = await t.services.orm.em.fork().getConnection().execute('select start from workflow_handovers where workflow_id = ?', [`room-recording-stop-${room.id}`]);
  expect(rows).toHaveLength(1);
  const summary = (rows[0].start as { summary: string }).summary;
  expect(summary.isWellFormed()).toBe(true);
  expect(summary.endsWith('…"')).toBe(true);
  expect(Array.from(summary.slice(summary.indexOf('"') + 1, -2))).toHaveLength(59);
});

test('rooms and participants publish no domain event: their sockets are told in the transaction (closed-doors tests)', async () => {
  const seen: string[] = [];
  const stop = t.services.events.subscribe((e) => seen.push(`${e.type}:${e.roomId}`));
  try {
    const room = await createRoom(t, tenant);
    const p = await addParticipant(t, tenant, room.id);
    await t.request.delete(`/api/v1/rooms/${room.id}/participants/${p.participant.id}`).set(tenant.auth).expect(204);
    await t.request.post(`/api/v1/rooms/${room.id}/end`).set(tenant.auth).expect(200);
    await t.request.delete(`/api/v1/rooms/${room.id}`).set(tenant.auth).expect(204);
    await t.request.post('/api/v1/rooms/created-by-joining/participants').set(tenant.auth).send({ display_name: 'A' }).expect(201);
    expect(seen).toEqual([]);
  } finally {
    stop();
  }
});
