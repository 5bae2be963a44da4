// The names post-meeting processing gives the analyser (docs/decisions.md §9): the display names of the participants
// who were in the recording's room while it recorded, from the real database: not those who left before it started
// or came after it stopped, not another room's or another tenant's, each name once, none for a crowd.
import { v7 as uuidv7 } from 'uuid';
import { MAX_MEETING_PARTICIPANTS, meetingParticipants } from '../../../src/modules/post-meeting/meeting-participants.ts';
import { ParticipantSchema } from '../../../src/modules/participants/participant.entity.ts';
import { RecordingSchema, type Recording } from '../../../src/modules/recordings/recording.entity.ts';
import { addParticipant, createRoom, createTenant, type TenantFixture } from '../../helpers/fixtures.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';

let t: TestApp;
let tenant: TenantFixture;
let other: TenantFixture;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t);
  other = await createTenant(t);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

/** A stopped recording of the room, from `started` to `stopped` minutes ago. */
async function recordingOf(tenantId: string, roomId: string, started: number, stopped: number): Promise<Recording> {
  const em = t.services.orm.em.fork();
  const recording = em.create(RecordingSchema, {
    id: uuidv7(),
    tenant: tenantId,
    room: roomId,
    status: 'processing',
    startedAt: minutesAgo(started),
    stoppedAt: minutesAgo(stopped),
  });
  await em.flush();
  return recording;
}

/** A participant who joined `joined` minutes ago and, if given, was removed `removed` minutes ago. */
async function participant(who: TenantFixture, roomId: string, name: string, joined: number, removed?: number): Promise<void> {
  const added = await addParticipant(t, who, roomId, { display_name: name });
  const em = t.services.orm.em.fork();
  await em.nativeUpdate(
    ParticipantSchema,
    { id: added.participant.id },
    { joinedAt: minutesAgo(joined), removedAt: removed === undefined ? null : minutesAgo(removed) },
  );
}

test('those in the room while it recorded, each name once, in the order they joined', async () => {
  const room = await createRoom(t, tenant);
  const elsewhere = await createRoom(t, tenant);
  const othersRoom = await createRoom(t, other);
  await participant(tenant, room.id, 'Amelia Hart', 50);
  await participant(tenant, room.id, 'Zara', 40, 20); // left during the recording: she was there
  await participant(tenant, room.id, 'Hugo', 35);
  await participant(tenant, room.id, 'Hugo', 34); // a second device with the same name
  await participant(tenant, room.id, 'Left Early', 60, 45); // gone before it started
  await participant(tenant, room.id, 'Came Late', 5); // joined after it stopped
  await participant(tenant, elsewhere.id, 'Other Room', 40);
  await participant(other, othersRoom.id, 'Other Tenant', 40);
  const recording = await recordingOf(tenant.id, room.id, 30, 10);
  expect(await meetingParticipants(t.services.orm.em.fork(), recording)).toEqual(['Amelia Hart', 'Zara', 'Hugo']);
});

test('a room nobody joined, and a crowd too large to tell speakers by, give no names', async () => {
  const empty = await createRoom(t, tenant);
  expect(await meetingParticipants(t.services.orm.em.fork(), await recordingOf(tenant.id, empty.id, 30, 10))).toBeUndefined();

  const lecture = await createRoom(t, tenant);
  const em = t.services.orm.em.fork();
  for (let i = 0; i <= MAX_MEETING_PARTICIPANTS; i++) {
    em.create(ParticipantSchema, { id: uuidv7(), tenant: tenant.id, room: lecture.id, displayName: `Listener ${i}`, role: 'viewer', joinedAt: minutesAgo(40) });
  }
  await em.flush();
  expect(await meetingParticipants(t.services.orm.em.fork(), await recordingOf(tenant.id, lecture.id, 30, 10))).toBeUndefined();
});
