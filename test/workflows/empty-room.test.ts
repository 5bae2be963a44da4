// The empty-room timer on Temporal's time-skipping test server: 30-minute waits pass in seconds. The app itself is
// pointed at that server, so the signals come from the real paths (Add Participant, the gateway's presence changes),
// and the workflow runs with its real activities against the real database and RoomService.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { emptyRoomStateQuery, emptyRoomWorkflowId } from '../../workflows/shared.ts';
import { testActivities } from '../helpers/activities.ts';
import { addParticipant, createRoom, createTenant, patchConfig, type TenantFixture } from '../helpers/fixtures.ts';
import { startRealtimeServer, type RealtimeServer } from '../helpers/realtime-server.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { createTimeSkippingEnv } from '../helpers/time-skipping.ts';
import { connect } from '../helpers/ws-client.ts';

const TASK_QUEUE = 'empty-room-test';
let env: TestWorkflowEnvironment;
let t: TestApp;
let worker: Worker;
let running: Promise<void>;
let server: RealtimeServer;
let tenant: TenantFixture;

beforeAll(async () => {
  env = await createTimeSkippingEnv();
  t = await createTestApp({ TEMPORAL_ADDRESS: env.address, TEMPORAL_TASK_QUEUE: TASK_QUEUE });
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowsPath: fileURLToPath(new URL('../../workflows/empty-room.ts', import.meta.url)),
    activities: testActivities(t),
  });
  running = worker.run();
  server = await startRealtimeServer(t.services);
  tenant = await createTenant(t);
  await patchConfig(t, tenant, { empty_room_timeout_minutes: 30 });
}, 120_000);

afterAll(async () => {
  await server?.close();
  worker?.shutdown();
  await running;
  await t?.close();
  await env?.teardown();
});

async function roomStatus(roomId: string): Promise<string> {
  const res = await t.request.get(`/api/v1/rooms/${roomId}`).set(tenant.auth);
  return res.body.status;
}

/** Waits until the workflow has seen the change numbered at least `seq` and its timer runs (or not). */
async function settled(roomId: string, expect: { present: boolean; minSeq?: number }) {
  const handle = env.client.workflow.getHandle(emptyRoomWorkflowId(roomId));
  for (let i = 0; i < 200; i++) {
    const state = await handle.query(emptyRoomStateQuery).catch(() => undefined);
    if (state && state.present === expect.present && state.seq >= (expect.minSeq ?? -1) && state.timing === !expect.present) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the empty-room workflow did not settle on present=${expect.present}`);
}

/** The tenant's 30-minute timeout, counted from now: still active a minute before, ended a minute after. */
async function expectEndsAfterTimeout(roomId: string) {
  await env.sleep('29 minutes');
  expect(await roomStatus(roomId)).toBe('active');
  await env.sleep('2 minutes');
  expect(await env.client.workflow.getHandle(emptyRoomWorkflowId(roomId)).result()).toBe('ended');
  expect(await roomStatus(roomId)).toBe('ended');
}

test('a room nobody joins ends empty_room_timeout_minutes after its creation, not before', async () => {
  const room = await createRoom(t, tenant); // room.created starts the timer; no participant needed
  await settled(room.id, { present: false });
  await expectEndsAfterTimeout(room.id);
});

test('a connect cancels the wait; the timer restarts from the last disconnect', async () => {
  const room = await createRoom(t, tenant);
  const p = await addParticipant(t, tenant, room.id);
  await settled(room.id, { present: false });
  await env.sleep('20 minutes');

  const socket = await connect(server.wsUrl, p.access_token);
  await socket.next('room.snapshot');
  await settled(room.id, { present: true });
  await env.sleep('3 hours'); // occupied rooms never end by timer
  expect(await roomStatus(room.id)).toBe('active');

  const watcher = await connect(server.wsUrl, p.access_token); // a second socket of the same participant
  await watcher.next('room.snapshot');
  await socket.close();
  await settled(room.id, { present: true }); // still present through the other socket
  await watcher.close();
  await settled(room.id, { present: false });
  await expectEndsAfterTimeout(room.id);
});

test('a late or lost signal never ends an occupied room (the activity checks presence in the database)', async () => {
  // The workflow is told "empty" while a socket is open: the activity sees the socket and keeps the room.
  const room = await createRoom(t, tenant);
  const p = await addParticipant(t, tenant, room.id);
  const socket = await connect(server.wsUrl, p.access_token);
  await socket.next('room.snapshot');
  await t.services.emptyRoomTimer.presenceChanged(tenant.id, room.id, false, 1_000_000); // a wrong "empty" arriving last
  await settled(room.id, { present: false });
  await env.sleep('31 minutes');
  expect(await roomStatus(room.id)).toBe('active');
  await settled(room.id, { present: false }); // occupied: it waits again
  expect(socket.unread()).toEqual([]);
  await socket.close();
});
