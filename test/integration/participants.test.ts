import { decodeJwt } from 'jose';
import { addParticipant, bearer, createRoom, createTenant, patchConfig, type TenantFixture } from '../helpers/fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let tenant: TenantFixture;
beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t);
});
afterAll(async () => {
  await t.close();
});

test('add returns every field of the specification', async () => {
  const room = await createRoom(t, tenant);
  const res = await t.request.post(`/api/v1/rooms/${room.id}/participants`).set(tenant.auth).send({ display_name: 'Ada', external_user_id: 'u-1', role: 'host' });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({
    participant: { id: expect.any(String), room_id: room.id, display_name: 'Ada', external_user_id: 'u-1', role: 'host' },
    room: { id: room.id, name: room.name, status: 'active' },
    room_created: false,
    token_type: 'Bearer',
    expires_in: 3600,
    should_start_recording: false,
  });
  expect(res.body.tenant_config).toMatchObject({ allow_early_join: true, duplicate_participant_policy: 'reject' });
  expect(res.body.tenant_config).not.toHaveProperty('post_meeting_webhook');
  const access = decodeJwt(res.body.access_token);
  const auth = decodeJwt(res.body.auth_token);
  expect(access).toMatchObject({ typ: 'access', room_id: room.id, participant_id: res.body.participant.id, role: 'host', tenant_id: tenant.id });
  expect(auth).toMatchObject({ typ: 'auth', room_id: room.id, participant_id: res.body.participant.id });
  expect(decodeJwt(res.body.refresh_token).typ).toBe('refresh');
});

test('role defaults to participant; external_user_id is omitted when absent', async () => {
  const room = await createRoom(t, tenant);
  const res = await t.request.post(`/api/v1/rooms/${room.id}/participants`).set(tenant.auth).send({ display_name: 'Bo' });
  expect(res.body.participant.role).toBe('participant');
  expect(res.body.participant).not.toHaveProperty('external_user_id');
  const bad = await t.request.post(`/api/v1/rooms/${room.id}/participants`).set(tenant.auth).send({ display_name: 'Bo', role: 'admin' });
  expect(bad.status).toBe(400);
  const missing = await t.request.post(`/api/v1/rooms/${room.id}/participants`).set(tenant.auth).send({});
  expect(missing.status).toBe(400);
});

test('early join creates the room by name; off, or by UUID, it is 404', async () => {
  const res = await t.request.post('/api/v1/rooms/pop-up-lecture/participants').set(tenant.auth).send({ display_name: 'First' });
  expect(res.status).toBe(201);
  expect(res.body.room_created).toBe(true);
  expect(res.body.room).toMatchObject({ name: 'pop-up-lecture', status: 'active' });
  const second = await t.request.post('/api/v1/rooms/pop-up-lecture/participants').set(tenant.auth).send({ display_name: 'Second' });
  expect(second.body.room_created).toBe(false);
  expect(second.body.room.id).toBe(res.body.room.id);

  const uuid = await t.request.post('/api/v1/rooms/0190f3a2-7b1c-7def-8000-123456789abc/participants').set(tenant.auth).send({ display_name: 'X' });
  expect(uuid.status).toBe(404);

  const strict = await createTenant(t);
  await patchConfig(t, strict, { allow_early_join: false });
  const refused = await t.request.post('/api/v1/rooms/not-yet/participants').set(strict.auth).send({ display_name: 'X' });
  expect(refused.status).toBe(404);
  expect(refused.body.error.code).toBe('NOT_FOUND');
  expect((await t.request.get('/api/v1/rooms').set(strict.auth)).body.total).toBe(0);
});

test('should_start_recording follows the room and the tenant config', async () => {
  const auto = await createTenant(t);
  await patchConfig(t, auto, { auto_start_recording: true });
  const recorded = await createRoom(t, auto, { config: { recording_enabled: true } });
  const plain = await createRoom(t, auto);
  expect((await t.request.post(`/api/v1/rooms/${recorded.id}/participants`).set(auto.auth).send({ display_name: 'A' })).body.should_start_recording).toBe(true);
  expect((await t.request.post(`/api/v1/rooms/${plain.id}/participants`).set(auto.auth).send({ display_name: 'A' })).body.should_start_recording).toBe(false);
});

test('list: joined_at, external_user_id omitted when absent, removed ones gone, active filter', async () => {
  const room = await createRoom(t, tenant);
  const a = await addParticipant(t, tenant, room.id, { display_name: 'A', external_user_id: 'ext-a' });
  const b = await addParticipant(t, tenant, room.id, { display_name: 'B' });
  const c = await addParticipant(t, tenant, room.id, { display_name: 'C' });
  await t.request.delete(`/api/v1/rooms/${room.id}/participants/${c.participant.id}`).set(tenant.auth).expect(204);

  const res = await t.request.get(`/api/v1/rooms/${room.id}/participants`).set(tenant.auth);
  expect(res.status).toBe(200);
  expect(res.body.participants).toEqual([
    { id: a.participant.id, display_name: 'A', external_user_id: 'ext-a', role: 'participant', joined_at: expect.any(String) },
    { id: b.participant.id, display_name: 'B', role: 'participant', joined_at: expect.any(String) },
  ]);
  // Present means an open WebSocket; nobody has one here.
  const active = await t.request.get(`/api/v1/rooms/${room.id}/participants?active=true`).set(tenant.auth);
  expect(active.body.participants).toEqual([]);
  // By name works too.
  expect((await t.request.get(`/api/v1/rooms/${room.name}/participants`).set(tenant.auth)).body.participants).toHaveLength(2);
});

test('remove revokes the participant tokens at once', async () => {
  const room = await createRoom(t, tenant);
  const p = await addParticipant(t, tenant, room.id);
  expect((await t.request.get(`/api/v1/rooms/${room.id}`).set(bearer(p.auth_token))).status).toBe(200);
  await t.request.delete(`/api/v1/rooms/${room.id}/participants/${p.participant.id}`).set(tenant.auth).expect(204);
  expect((await t.request.get(`/api/v1/rooms/${room.id}`).set(bearer(p.auth_token))).status).toBe(401);
  const refresh = await t.request.post('/api/v1/auth/refresh').send({ refresh_token: p.refresh_token });
  expect(refresh.status).toBe(401);
  expect(refresh.body.error.code).toBe('INVALID_REFRESH_TOKEN');
  expect((await t.request.delete(`/api/v1/rooms/${room.id}/participants/${p.participant.id}`).set(tenant.auth)).status).toBe(404);
});

test('token reissue and participant refresh return a full participant set', async () => {
  const room = await createRoom(t, tenant);
  const p = await addParticipant(t, tenant, room.id);
  const reissued = await t.request.post(`/api/v1/rooms/${room.id}/participants/${p.participant.id}/token`).set(tenant.auth);
  expect(reissued.status).toBe(200);
  expect(reissued.body).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, auth_token: expect.any(String) });
  const refreshed = await t.request.post('/api/v1/auth/refresh').send({ refresh_token: p.refresh_token });
  expect(refreshed.status).toBe(200);
  expect(refreshed.body.data).toMatchObject({ token_type: 'Bearer', expires_in: 3600, auth_token: expect.any(String) });
  expect(decodeJwt(refreshed.body.data.access_token)).toMatchObject({ participant_id: p.participant.id, room_id: room.id });
});

describe('duplicate policy (same external_user_id among current participants)', () => {
  test('reject: 409 DUPLICATE_PARTICIPANT', async () => {
    const room = await createRoom(t, tenant);
    await addParticipant(t, tenant, room.id, { external_user_id: 'dup' });
    const res = await t.request.post(`/api/v1/rooms/${room.id}/participants`).set(tenant.auth).send({ display_name: 'Again', external_user_id: 'dup' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('DUPLICATE_PARTICIPANT');
  });

  test('disconnect_existing: the old one is removed and its tokens die', async () => {
    const policy = await createTenant(t);
    await patchConfig(t, policy, { duplicate_participant_policy: 'disconnect_existing' });
    const room = await createRoom(t, policy);
    const old = await addParticipant(t, policy, room.id, { external_user_id: 'dup' });
    const fresh = await addParticipant(t, policy, room.id, { external_user_id: 'dup' });
    const list = (await t.request.get(`/api/v1/rooms/${room.id}/participants`).set(policy.auth)).body.participants;
    expect(list.map((p: { id: string }) => p.id)).toEqual([fresh.participant.id]);
    expect((await t.request.get(`/api/v1/rooms/${room.id}`).set(bearer(old.auth_token))).status).toBe(401);
  });

  test('allow: both stay', async () => {
    const policy = await createTenant(t);
    await patchConfig(t, policy, { duplicate_participant_policy: 'allow' });
    const room = await createRoom(t, policy);
    await addParticipant(t, policy, room.id, { external_user_id: 'dup' });
    await addParticipant(t, policy, room.id, { external_user_id: 'dup' });
    expect((await t.request.get(`/api/v1/rooms/${room.id}/participants`).set(policy.auth)).body.participants).toHaveLength(2);
  });
});

describe('bulk add', () => {
  test('per-item results, never all-or-nothing', async () => {
    const room = await createRoom(t, tenant, { config: { max_participants: 3 } });
    await addParticipant(t, tenant, room.id, { external_user_id: 'taken' });
    const res = await t.request
      .post(`/api/v1/rooms/${room.id}/participants/bulk`)
      .set(tenant.auth)
      .send({ participants: [{ display_name: 'A' }, { role: 'viewer' }, { display_name: 'Dup', external_user_id: 'taken' }, { display_name: 'B' }, { display_name: 'Over' }] });
    expect(res.status).toBe(200);
    const r = res.body.results;
    expect(r).toHaveLength(5);
    expect(r[0]).toEqual({ participant_id: expect.any(String), success: true, access_token: expect.any(String), auth_token: expect.any(String) });
    expect(r[1]).toMatchObject({ success: false, error: expect.stringContaining('display_name') });
    expect(r[2]).toMatchObject({ success: false, code: 'DUPLICATE_PARTICIPANT' });
    expect(r[3].success).toBe(true);
    expect(r[4]).toMatchObject({ success: false, code: 'LIMIT_EXCEEDED' });
    expect((await t.request.get(`/api/v1/rooms/${room.id}`).set(tenant.auth)).body.participant_count).toBe(3);
  });

  test('bounds: 1–100 entries', async () => {
    const room = await createRoom(t, tenant);
    for (const n of [0, 101]) {
      const res = await t.request.post(`/api/v1/rooms/${room.id}/participants/bulk`).set(tenant.auth).send({ participants: Array.from({ length: n }, () => ({ display_name: 'x' })) });
      expect(res.status).toBe(400);
    }
  });
});
