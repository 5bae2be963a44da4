// A WebSocket lives no longer than the access token it was opened with (docs/decisions.md §11): at the token's exp the
// server closes it with 4005 TOKEN_EXPIRED (spec/asyncapi.yaml close codes). A 2-second participant token stands for a
// short PARTICIPANT_TOKEN_TTL_SECONDS (whose configured minimum is 60 s), signed by the app's own TokenService.
import { CloseCode } from '../../../generated/asyncapi.ts';
import { addParticipant, createRoom, createTenant } from '../../helpers/fixtures.ts';
import { startRealtimeServer, type RealtimeServer } from '../../helpers/realtime-server.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';
import { connect, connectRefused } from '../../helpers/ws-client.ts';

let t: TestApp;
let server: RealtimeServer;
beforeAll(async () => {
  t = await createTestApp();
  server = await startRealtimeServer(t.services);
});
afterAll(async () => {
  await server.close();
  await t.close();
});

test('a socket is closed with 4005 when its access token expires; one with a long-lived token stays open', async () => {
  const tenant = await createTenant(t);
  const room = await createRoom(t, tenant);
  const short = await addParticipant(t, tenant, room.id, { display_name: 'Short' });
  const long = await addParticipant(t, tenant, room.id, { display_name: 'Long' });
  const { participant } = short;
  const shortToken = await t.services.tokens.sign(
    { sub: participant.id, tenant_id: tenant.id, room_id: room.id, participant_id: participant.id, role: 'participant', typ: 'access' },
    2,
  );
  const opened = Date.now();
  const expiring = await connect(server.wsUrl, shortToken);
  const staying = await connect(server.wsUrl, long.access_token);
  await expiring.next('room.snapshot');

  const closed = await expiring.closed;
  expect(closed).toEqual({ code: CloseCode.TOKEN_EXPIRED, reason: 'Access token expired' });
  expect(closed.code).toBe(4005);
  expect(Date.now() - opened).toBeGreaterThanOrEqual(1000); // not before the exp (second precision)
  // Its departure is recorded like any other, and the other member sees it.
  const left = await staying.next('participant.left');
  expect(left.data).toMatchObject({ id: participant.id });
  expect(staying.ws.readyState).toBe(staying.ws.OPEN);
  await staying.close();
  // The expired token cannot open a new socket: 401 TOKEN_EXPIRED before the upgrade (docs/decisions.md §11).
  const refused = await connectRefused(server.wsUrl, shortToken);
  expect([refused.status, refused.body.error.code]).toEqual([401, 'TOKEN_EXPIRED']);
});
