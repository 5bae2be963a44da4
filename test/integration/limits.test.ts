import { v7 as uuidv7 } from 'uuid';
import { ParticipantWriter } from '../../src/modules/participants/participant-insert.ts';
import { createRoom, createTenant } from '../helpers/fixtures.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Limits stay exact when 50 requests race: each test fires them at once and counts what was created.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

test('max_concurrent_rooms', async () => {
  const tenant = await createTenant(t, { max_concurrent_rooms: 7 });
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) => t.request.post('/api/v1/rooms').set(tenant.auth).send({ name: `race-${i}` })));
  const statuses = results.map((r) => r.status);
  expect(statuses.filter((s) => s === 201)).toHaveLength(7);
  expect(statuses.filter((s) => s === 409)).toHaveLength(43);
  expect(results.find((r) => r.status === 409)!.body.error).toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 'max_concurrent_rooms', max: 7 } });
  expect((await t.request.get('/api/v1/rooms').set(tenant.auth)).body.total).toBe(7);
  // Ended rooms free their slot.
  const first = results.find((r) => r.status === 201)!.body.id;
  await t.request.post(`/api/v1/rooms/${first}/end`).set(tenant.auth).expect(200);
  await createRoom(t, tenant);
});

test('max_participants_per_room', async () => {
  const tenant = await createTenant(t, { max_participants_per_room: 9 });
  const room = await createRoom(t, tenant);
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) => t.request.post(`/api/v1/rooms/${room.id}/participants`).set(tenant.auth).send({ display_name: `p${i}` })));
  expect(results.filter((r) => r.status === 201)).toHaveLength(9);
  const refused = results.filter((r) => r.status === 409);
  expect(refused).toHaveLength(41);
  expect(refused[0].body.error).toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 'max_participants_per_room', max: 9 } });
  expect((await t.request.get(`/api/v1/rooms/${room.id}`).set(tenant.auth)).body.participant_count).toBe(9);
});

test('room max_participants', async () => {
  const tenant = await createTenant(t);
  const room = await createRoom(t, tenant, { config: { max_participants: 4 } });
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) => t.request.post(`/api/v1/rooms/${room.id}/participants`).set(tenant.auth).send({ display_name: `p${i}` })));
  expect(results.filter((r) => r.status === 201)).toHaveLength(4);
  expect(results.find((r) => r.status === 409)!.body.error.details).toEqual({ limit: 'max_participants', max: 4 });
});

test('early join under a race creates exactly one room', async () => {
  const tenant = await createTenant(t, { max_participants_per_room: 50 });
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => t.request.post('/api/v1/rooms/stampede/participants').set(tenant.auth).send({ display_name: `p${i}` })));
  expect(results.every((r) => r.status === 201)).toBe(true);
  expect(new Set(results.map((r) => r.body.room.id)).size).toBe(1);
  expect(results.filter((r) => r.body.room_created)).toHaveLength(1);
});

// The HTTP races above arrive one by one through one process; this one puts the adds on the database side by side
// (a writer with more connections than the room has seats), where only the room's lock keeps the count exact.
test('the participant writer admits exactly max_participants when its inserts run in parallel', async () => {
  const tenant = await createTenant(t);
  const writer = new ParticipantWriter({ databaseUrl: t.databaseUrl, logger: t.services.logger, poolSize: 16 });
  try {
    for (let round = 0; round < 5; round++) {
      const room = await createRoom(t, tenant, { config: { max_participants: 3 } });
      const inserted = await Promise.all(
        Array.from({ length: 32 }, (_, i) => {
          const id = uuidv7();
          const refresh = { jti: uuidv7(), familyId: uuidv7(), tenantId: tenant.id, participantId: id, expiresAt: new Date(Date.now() + 3600_000) };
          return writer.insert({ id, tenantId: tenant.id, roomId: room.id, displayName: `p${i}`, externalUserId: null, role: 'participant', joinedAt: new Date() }, refresh);
        }),
      );
      expect(inserted.filter(Boolean)).toHaveLength(3);
      expect((await t.request.get(`/api/v1/rooms/${room.id}`).set(tenant.auth)).body.participant_count).toBe(3);
    }
  } finally {
    await writer.close();
  }
});
