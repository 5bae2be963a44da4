// WebSocket caps (docs/decisions.md §11, §14): sockets per participant (a new one replaces the oldest, closed 4006), upgrades
// per client address, and refused tokens counted with the API's failed credentials.
import { CloseCode } from '../../../generated/asyncapi.ts';
import { createAuthFailureLimiter } from '../../../src/app.ts';
import { addParticipant, createRoom, createTenant, type TenantFixture } from '../../helpers/fixtures.ts';
import { startRealtimeServer, type RealtimeServer } from '../../helpers/realtime-server.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';
import { connect, connectRefused, type TestSocket } from '../../helpers/ws-client.ts';

let t: TestApp;
let tenant: TenantFixture;
const servers: RealtimeServer[] = [];
const open: TestSocket[] = [];

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t);
}, 60_000);

afterAll(async () => {
  for (const socket of open) if (socket.ws.readyState === socket.ws.OPEN) await socket.close();
  for (const server of servers) await server.close();
  await t?.close();
});

async function serve(options: Parameters<typeof startRealtimeServer>[1]): Promise<RealtimeServer> {
  const server = await startRealtimeServer(t.services, options);
  servers.push(server);
  return server;
}

test('a participant opening one socket more than the cap: its oldest is closed with 4006, it stays present', async () => {
  const server = await serve({ maxSocketsPerParticipant: 2 });
  const room = await createRoom(t, tenant);
  const ada = await addParticipant(t, tenant, room.id, { display_name: 'Ada' });
  const bo = await addParticipant(t, tenant, room.id, { display_name: 'Bo' });
  const watcher = await connect(server.wsUrl, bo.access_token);
  open.push(watcher);
  await watcher.next('room.snapshot');

  const sockets: TestSocket[] = [];
  for (let i = 0; i < 3; i++) {
    const socket = await connect(server.wsUrl, ada.access_token);
    open.push(socket);
    await socket.next('room.snapshot');
    sockets.push(socket);
  }
  expect(await sockets[0].closed).toEqual({ code: CloseCode.REPLACED_BY_NEWER_SOCKET, reason: 'Replaced by a newer connection' });
  expect(CloseCode.REPLACED_BY_NEWER_SOCKET).toBe(4006);
  expect([sockets[1], sockets[2]].map((s) => s.ws.readyState)).toEqual([sockets[1].ws.OPEN, sockets[1].ws.OPEN]);

  // Ada is still present (her newer sockets); Bo saw her join once and never leave.
  const res = await t.request.get(`/api/v1/rooms/${room.id}/participants?active=true`).set(tenant.auth);
  expect((res.body.participants ?? res.body.data).map((p: { id: string }) => p.id)).toContain(ada.participant.id);
  await watcher.next('participant.joined');
  await sockets[2].close();
  await sockets[1].close();
  const left = await watcher.next('participant.left');
  expect(left.data.id).toBe(ada.participant.id);
  expect(watcher.received.filter((m) => m.event === 'participant.left')).toHaveLength(1);
});

test('upgrades per address: over the limit, 429 RATE_LIMITED with Retry-After before the token is looked at', async () => {
  const server = await serve({ upgradesPerAddressPerMinute: 3 });
  for (let i = 0; i < 3; i++) expect((await connectRefused(server.wsUrl, 'not-a-token')).status).toBe(401);
  const refused = await connectRefused(server.wsUrl, 'not-a-token');
  expect(refused.status).toBe(429);
  expect(refused.body.error.code).toBe('RATE_LIMITED');
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
});

test('refused tokens count as failed credentials of the address; past the limit, 429 before the token is checked', async () => {
  const limited = await createTestApp({ AUTH_FAILURE_LIMIT_PER_MINUTE: '2' });
  try {
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
    const server = await serve({ authFailures: createAuthFailureLimiter(limited.services) });
    expect((await connectRefused(server.wsUrl, 'bad-1')).status).toBe(401);
    expect((await connectRefused(server.wsUrl, 'bad-2')).status).toBe(401);
    const refused = await connectRefused(server.wsUrl, 'bad-3');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
  } finally {
    await limited.close();
  }
});
