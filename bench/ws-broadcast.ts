// Benchmark (not a test): one room, N connected clients, chat from one sender; Convene's gateway beside a bare `ws`
// broadcast server doing the same work, in the same run, on loopback. Then memory per idle connection, then fan-out
// across two instances (Convene: two gateways with the PostgreSQL room bus between them; bare: two `ws` servers
// relaying to each other over one loopback WebSocket).
//
//   npx node --expose-gc bench/ws-broadcast.ts [--clients 1000] [--messages 500] [--rate 50] [--burst 500] [--idle 10000]
//                                              [--fanout 5000] [--fanout-messages 1000] [--fanout-rate 100]
//
// A part is skipped when its count is 0. The process raises its own open-file limit to the hard limit (`ulimit -n`),
// so 10,000 connections fit; everything listens on 127.0.0.1 only.
//
// This process runs the servers (and a throwaway PostgreSQL, unless DATABASE_URL is set); a forked child runs every
// client, the sender included, so send and receive times come from one clock. Results: BENCHMARKS.md.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket, { WebSocketServer } from 'ws';

const { values: args } = parseArgs({
  options: {
    role: { type: 'string', default: 'server' },
    clients: { type: 'string', default: '1000' },
    messages: { type: 'string', default: '500' },
    rate: { type: 'string', default: '50' },
    burst: { type: 'string', default: '500' },
    idle: { type: 'string', default: '10000' },
    fanout: { type: 'string', default: '5000' },
    'fanout-messages': { type: 'string', default: '1000' },
    'fanout-rate': { type: 'string', default: '100' },
  },
});

// ---------------------------------------------------------------------------------------------------------------
// Client side (child process)
// ---------------------------------------------------------------------------------------------------------------

/** One client: where it connects, its token (null for a bare server: no authentication) and its room. */
interface Target {
  url: string;
  token: string | null;
  room: number;
}
interface BroadcastJob {
  kind: 'broadcast';
  targets: Target[];
  /** Indexes of the senders; message i is sent by senders[i % senders.length], to its room. */
  senders: number[];
  messages: number;
  rate: number;
  burst: number;
}
interface IdleJob {
  kind: 'idle';
  targets: Target[];
}
interface BroadcastResult {
  deliveries: number;
  expected: number;
  p50: number;
  p99: number;
  max: number;
  burstMessagesPerSecond: number;
  burstDeliveriesPerSecond: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function openClients(targets: Target[], onMessage?: (data: string) => void): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  const BATCH = 50;
  for (let i = 0; i < targets.length; i += BATCH) {
    const batch = targets.slice(i, i + BATCH).map(
      ({ url, token }) =>
        new Promise<WebSocket>((resolve, reject) => {
          const ws = new WebSocket(url, token ? ['convene', `token.${token}`] : ['convene']);
          // Connected = its first message (the snapshot) arrived.
          ws.once('message', () => {
            if (onMessage) ws.on('message', (data) => onMessage(data.toString()));
            resolve(ws);
          });
          ws.once('error', reject);
          ws.once('unexpected-response', (_req, res) => reject(new Error(`refused ${res.statusCode}`)));
        }),
    );
    sockets.push(...(await Promise.all(batch)));
  }
  return sockets;
}

/** Waits until nothing has arrived for `quietMs` (joins announced to everyone settle down), at most `maxMs`. */
async function quiet(sockets: WebSocket[], quietMs: number, maxMs: number): Promise<void> {
  let last = performance.now();
  const touch = () => (last = performance.now());
  for (const ws of sockets) ws.on('message', touch);
  const deadline = performance.now() + maxMs;
  while (performance.now() - last < quietMs && performance.now() < deadline) await sleep(50);
  for (const ws of sockets) ws.off('message', touch);
}

async function broadcast(job: BroadcastJob): Promise<BroadcastResult> {
  const roomSize = new Map<number, number>();
  for (const t of job.targets) roomSize.set(t.room, (roomSize.get(t.room) ?? 0) + 1);
  const sizeOf = (i: number) => roomSize.get(job.targets[job.senders[i % job.senders.length]].room)!;
  let expected = 0;
  for (let i = 0; i < job.messages; i++) expected += sizeOf(i);
  let burstExpected = 0;
  for (let i = 0; i < job.burst; i++) burstExpected += sizeOf(i);
  const latencies = new Float64Array(expected);
  let recorded = 0;
  let burstReceived = 0;
  let burstLast = 0;
  const onMessage = (data: string) => {
    if (!data.includes('"chat.message"')) return;
    const text = (JSON.parse(data) as { data: { text: string } }).data.text;
    const [phase, , sentAt] = text.split(':');
    const now = performance.now();
    if (phase === 'p' && recorded < latencies.length) latencies[recorded++] = now - Number(sentAt);
    else if (phase === 'b') {
      burstReceived++;
      burstLast = now;
    }
  };
  const sockets = await openClients(job.targets);
  await quiet(sockets, 500, 60_000);
  for (const ws of sockets) ws.on('message', (d) => onMessage(d.toString()));
  const sender = (i: number) => sockets[job.senders[i % job.senders.length]];

  // Paced: latency at a steady rate.
  const interval = 1000 / job.rate;
  const start = performance.now();
  for (let i = 0; i < job.messages; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    sender(i).send(JSON.stringify({ event: 'chat.send', data: { text: `p:${i}:${performance.now()}` } }));
  }
  const pacedDeadline = performance.now() + 60_000;
  while (recorded < expected && performance.now() < pacedDeadline) await sleep(20);
  const deliveries = recorded;

  // Burst: as fast as the sender can write; throughput until the last delivery.
  await sleep(500);
  const burstStart = performance.now();
  for (let i = 0; i < job.burst; i++) sender(i).send(JSON.stringify({ event: 'chat.send', data: { text: `b:${i}:${performance.now()}` } }));
  const burstDeadline = performance.now() + 120_000;
  while (burstReceived < burstExpected && performance.now() < burstDeadline) await sleep(20);
  const burstSeconds = (burstLast - burstStart) / 1000;

  for (const ws of sockets) ws.terminate();
  const sorted = latencies.slice(0, deliveries).sort();
  const at = (q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN);
  return {
    deliveries,
    expected,
    p50: at(0.5),
    p99: at(0.99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
    burstMessagesPerSecond: burstReceived === burstExpected ? job.burst / burstSeconds : NaN,
    burstDeliveriesPerSecond: burstReceived / burstSeconds,
  };
}

let idleSockets: WebSocket[] = [];

if (args.role === 'clients') {
  process.on('message', async (job: BroadcastJob | IdleJob | { kind: 'close' }) => {
    try {
      if (job.kind === 'broadcast') process.send!({ ok: true, result: await broadcast(job) });
      else if (job.kind === 'idle') {
        idleSockets = await openClients(job.targets);
        await quiet(idleSockets, 1000, 120_000);
        process.send!({ ok: true, result: idleSockets.length });
      } else {
        for (const ws of idleSockets) ws.terminate();
        idleSockets = [];
        process.send!({ ok: true, result: 0 });
      }
    } catch (err) {
      process.send!({ ok: false, error: String((err as Error).stack ?? err) });
    }
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Server side (this process)
// ---------------------------------------------------------------------------------------------------------------

function ask<T>(child: ChildProcess, job: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once('message', (reply: { ok: boolean; result?: T; error?: string }) => (reply.ok ? resolve(reply.result as T) : reject(new Error(reply.error))));
    child.send(job as object);
  });
}

/** The bare baseline: same messages on the wire (a snapshot first, chat.message to everyone), no auth, no storage. */
function startBareServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer();
  const wss = new WebSocketServer({ server, maxPayload: 64 * 1024, handleProtocols: () => 'convene' });
  wss.on('connection', (ws) => {
    const id = randomUUID();
    ws.send(JSON.stringify({ event: 'room.snapshot', data: { participants: [], raised_hands: [], recording: null } }));
    ws.on('message', (raw) => {
      const message = JSON.parse(raw.toString()) as { event: string; data: { text: string } };
      if (message.event !== 'chat.send') return;
      const out = JSON.stringify({ event: 'chat.message', data: { id: randomUUID(), sender_id: id, text: message.data.text, timestamp: new Date().toISOString() } });
      for (const client of wss.clients) if (client.readyState === WebSocket.OPEN) client.send(out);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `ws://127.0.0.1:${port}/`,
        close: () => new Promise<void>((done) => {
          for (const c of wss.clients) c.terminate();
          wss.close();
          server.close(() => done());
        }),
      });
    }),
  );
}

/**
 * JS heap + external buffers of this (server) process per open idle connection, after GC. RSS is not reported: freed
 * pages are not returned to the OS promptly, so an RSS delta mostly says which server was measured first.
 */
async function memoryPerConnection(child: ChildProcess, targets: Target[], drained: () => Promise<void>) {
  const measure = async () => {
    for (let i = 0; i < 3; i++) {
      globalThis.gc?.();
      await sleep(200);
    }
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  // CONVENE_BENCH_HEAP=<folder>: heap snapshots before and after, to see what a connection holds.
  const snapshot = async (when: string) => {
    if (!process.env.CONVENE_BENCH_HEAP) return;
    const { writeHeapSnapshot } = await import('node:v8');
    writeHeapSnapshot(join(process.env.CONVENE_BENCH_HEAP, `${targets[0].token ? 'convene' : 'bare'}-${when}.heapsnapshot`));
  };
  const before = await measure();
  await snapshot('before');
  const opened = await ask<number>(child, { kind: 'idle', targets });
  await sleep(1000);
  const after = await measure();
  await snapshot('after');
  await ask(child, { kind: 'close' });
  await drained();
  return { connections: opened, bytesPerConnection: (after - before) / opened };
}

/**
 * The bare baseline across two instances: two `ws` servers, clients in rooms (`?room=`), each chat.message broadcast
 * to the room's local clients and relayed (room id + the serialised message) to the other server over one loopback
 * WebSocket, which broadcasts it to its own. No auth, no storage, no database: the wire cost of a second instance.
 */
async function startBarePair(): Promise<{ urls: [string, string]; close: () => Promise<void> }> {
  const make = () => {
    const server = createServer();
    const wss = new WebSocketServer({ server, maxPayload: 64 * 1024, handleProtocols: () => 'convene' });
    const rooms = new Map<string, Set<WebSocket>>();
    let peer: WebSocket | undefined;
    const local = (room: string, out: string) => {
      for (const client of rooms.get(room) ?? []) if (client.readyState === WebSocket.OPEN) client.send(out);
    };
    wss.on('connection', (ws, req) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.searchParams.has('peer')) {
        ws.on('message', (raw) => {
          const text = raw.toString();
          const nl = text.indexOf('\n');
          local(text.slice(0, nl), text.slice(nl + 1));
        });
        return;
      }
      const room = url.searchParams.get('room') ?? '';
      let members = rooms.get(room);
      if (!members) rooms.set(room, (members = new Set()));
      members.add(ws);
      ws.on('close', () => members.delete(ws));
      const id = randomUUID();
      ws.send(JSON.stringify({ event: 'room.snapshot', data: { participants: [], raised_hands: [], recording: null } }));
      ws.on('message', (raw) => {
        const message = JSON.parse(raw.toString()) as { event: string; data: { text: string } };
        if (message.event !== 'chat.send') return;
        const out = JSON.stringify({ event: 'chat.message', data: { id: randomUUID(), sender_id: id, text: message.data.text, timestamp: new Date().toISOString() } });
        local(room, out);
        peer?.send(`${room}\n${out}`);
      });
    });
    return { server, wss, connect: (url: string) => new Promise<void>((r) => (peer = new WebSocket(`${url}?peer=1`, ['convene'])).once('open', () => r())) };
  };
  const a = make();
  const b = make();
  const listen = (s: Server) => new Promise<string>((r) => s.listen(0, '127.0.0.1', () => r(`ws://127.0.0.1:${(s.address() as AddressInfo).port}/`)));
  const urls: [string, string] = [await listen(a.server), await listen(b.server)];
  await a.connect(urls[1]);
  await b.connect(urls[0]);
  return {
    urls,
    close: async () => {
      for (const x of [a, b]) {
        for (const c of x.wss.clients) c.terminate();
        x.wss.close();
        await new Promise<void>((r) => x.server.close(() => r()));
      }
    },
  };
}

/** Raises the soft open-file limit to the hard one by running this script again under `ulimit -n` (a shell builtin). */
async function withFileLimit(): Promise<boolean> {
  if (process.env.CONVENE_BENCH_ULIMIT) return false;
  const { spawn } = await import('node:child_process');
  const argv = [process.execPath, ...process.execArgv, new URL(import.meta.url).pathname, ...process.argv.slice(2)];
  const child = spawn('/bin/sh', ['-c', 'ulimit -n "$(ulimit -Hn)" && exec "$@"', 'sh', ...argv], {
    stdio: 'inherit',
    env: { ...process.env, CONVENE_BENCH_ULIMIT: '1' },
  });
  process.exitCode = await new Promise<number>((r) => child.on('exit', (code) => r(code ?? 1)));
  return true;
}


async function main(): Promise<void> {
  if (await withFileLimit()) return;
  const clients = Number(args.clients);
  const idle = Number(args.idle);
  const fanout = Number(args.fanout);
  if (!globalThis.gc) console.warn('run with node --expose-gc for steadier memory figures');
  const { execSync } = await import('node:child_process');
  console.log(`open-file limit: ${execSync('ulimit -n', { shell: '/bin/sh' }).toString().trim()}`);

  // Imported here so the client child never loads the app.
  const { loadConfig } = await import('../src/config.ts');
  const { createLogger } = await import('../src/logger.ts');
  const { createServices } = await import('../src/services/container.ts');
  const { createApp } = await import('../src/app.ts');
  const { attachGateway } = await import('../src/realtime/gateway.ts');
  const { startPostgres } = await import('../scripts/stack/postgres.ts');

  let databaseUrl = process.env.DATABASE_URL;
  let stopPostgres = async () => {};
  let tmp: string | undefined;
  if (!databaseUrl) {
    tmp = await mkdtemp(join(tmpdir(), 'convene-bench-'));
    const { chmod } = await import('node:fs/promises');
    await chmod(tmp, 0o755);
    const pg = await startPostgres({ dataDir: join(tmp, 'postgres'), password: randomBytes(12).toString('hex'), durable: false });
    await pg.createDatabase('bench');
    databaseUrl = pg.url('bench');
    stopPostgres = () => pg.stop();
  }
  const adminKey = 'bench-admin-key-0123456789';
  const config = loadConfig({ NODE_ENV: 'development', ADMIN_API_KEY: adminKey, LOG_LEVEL: 'error', TEMPORAL_ADDRESS: '127.0.0.1:1' });
  // The empty-room timer is off the broadcast path; leave Temporal out of the measurement.
  const timer = { presenceChanged: async () => {}, ensureRunning: async () => {}, roomClosed: async () => {}, close: async () => {} };
  /** One API instance: its own services (ORM, pools, LISTEN connection), HTTP server and gateway. */
  async function instance() {
    const services = await createServices(config, createLogger('error'), databaseUrl!);
    const server: Server = createServer(createApp(services));
    const gateway = attachGateway(
      server,
      { orm: services.orm, tokens: services.tokens, tenants: services.tenants, wsOriginPatterns: [], bus: services.roomBus, timer, logger: services.logger },
      // One sender writing as fast as it can is the point of the burst: lift the per-participant flood limit.
      { flood: { perSecond: 1e6, burst: 1e6 } },
    );
    await services.roomBus.listen();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    /** Every departure is a transaction: wait for them before anything else is measured. */
    const drained = async () => {
      for (let i = 0; i < 600 && gateway.hub.size > 0; i++) await sleep(100);
      await sleep(2000);
    };
    const close = async () => {
      await gateway.close();
      await new Promise<void>((r) => server.close(() => r()));
      await services.close();
    };
    return { services, gateway, base, url: `ws://${base}/api/v1/ws`, drained, close };
  }
  const a = await instance();
  const instances = [a];
  const { services } = a;

  // A tenant through the API; rooms and participants straight into the tables (the REST limits are not under test).
  const tenantRes = await fetch(`http://${a.base}/api/v1/tenants`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Admin-Key': adminKey },
    body: JSON.stringify({ name: 'bench' }),
  });
  const tenantId = ((await tenantRes.json()) as { data: { id: string } }).data.id;
  const sql = services.roomBus.pool;
  async function roomWith(count: number): Promise<string[]> {
    const roomId = randomUUID();
    await sql.query(
      `insert into rooms (id, tenant_id, name, status, max_participants, recording_enabled, chat_enabled, created_at, updated_at)
       values ($1, $2, $3, 'active', $4, false, true, now(), now())`,
      [roomId, tenantId, `bench-${roomId}`, count],
    );
    const { rows } = await sql.query<{ id: string }>(
      `insert into participants (id, tenant_id, room_id, display_name, role, joined_at)
       select gen_random_uuid(), $1, $2, 'Participant ' || g, 'participant', now() from generate_series(1, $3) g returning id`,
      [tenantId, roomId, count],
    );
    const tokens: string[] = [];
    for (const { id } of rows) {
      tokens.push(await services.tokens.sign({ sub: id, typ: 'access', tenant_id: tenantId, room_id: roomId, participant_id: id, role: 'participant' }, 3600));
    }
    return tokens;
  }
  /** Rooms of 100; member j of every room connects to urls[j % urls.length] with `?room=` (read by bare servers only). */
  async function roomsOf(total: number, urls: (k: number) => string[], bare: boolean): Promise<Target[]> {
    const targets: Target[] = [];
    for (let k = 0; k * 100 < total; k++) {
      const size = Math.min(100, total - k * 100);
      const tokens = bare ? new Array<null>(size).fill(null) : await roomWith(size);
      const u = urls(k);
      tokens.forEach((token, j) => targets.push({ url: bare ? `${u[j % u.length]}?room=${k}` : u[j % u.length], token, room: k }));
    }
    return targets;
  }

  const bare = await startBareServer();
  const child = fork(new URL(import.meta.url).pathname, ['--role', 'clients'], { stdio: 'inherit' });
  const job = { messages: Number(args.messages), rate: Number(args.rate), burst: Number(args.burst) };
  const ratio = (x: number, y: number) => (x / y).toFixed(2);
  try {
    if (clients > 0) {
      console.log(`broadcast: 1 room, ${clients} clients, ${job.messages} messages at ${job.rate}/s, then a burst of ${job.burst}`);
      const conveneTokens = await roomWith(clients);
      // Bare first; then Convene, whose 1,000 departures (each announced to those still there) must settle before
      // anything else is measured.
      const one = (url: string, tokens: (string | null)[]): Target[] => tokens.map((token) => ({ url, token, room: 0 }));
      const bareResult = await ask<BroadcastResult>(child, { kind: 'broadcast', targets: one(bare.url, new Array(clients).fill(null)), senders: [0], ...job });
      await sleep(2000);
      const conveneResult = await ask<BroadcastResult>(child, { kind: 'broadcast', targets: one(a.url, conveneTokens), senders: [0], ...job });
      await a.drained();
      const rows = [
        ['', 'Convene', 'bare ws', 'Convene/bare'],
        ['deliveries (paced)', `${conveneResult.deliveries}/${conveneResult.expected}`, `${bareResult.deliveries}/${bareResult.expected}`, ''],
        ...(['p50', 'p99', 'max'] as const).map((k) => [`${k} latency (ms)`, conveneResult[k].toFixed(2), bareResult[k].toFixed(2), ratio(conveneResult[k], bareResult[k])]),
        ['burst messages/s', conveneResult.burstMessagesPerSecond.toFixed(0), bareResult.burstMessagesPerSecond.toFixed(0), ratio(conveneResult.burstMessagesPerSecond, bareResult.burstMessagesPerSecond)],
        ['burst deliveries/s', conveneResult.burstDeliveriesPerSecond.toFixed(0), bareResult.burstDeliveriesPerSecond.toFixed(0), ratio(conveneResult.burstDeliveriesPerSecond, bareResult.burstDeliveriesPerSecond)],
      ];
      for (const row of rows) console.log(row.map((c, i) => (i === 0 ? c.padEnd(22) : c.padStart(14))).join(''));
    }

    if (idle > 0) {
      // Idle connections spread over rooms of 100, as a real deployment would hold them.
      const conveneTargets = await roomsOf(idle, () => [a.url], false);
      const bareMemory = await memoryPerConnection(child, new Array(idle).fill(0).map(() => ({ url: bare.url, token: null, room: 0 })), () => sleep(2000));
      const conveneMemory = await memoryPerConnection(child, conveneTargets, a.drained);
      console.log(`memory per idle connection at ${idle} connections (server process JS heap + buffers, after GC):`);
      console.log(`  bare ws: ${(bareMemory.bytesPerConnection / 1024).toFixed(2)} KiB (${bareMemory.connections} open)`);
      console.log(`  Convene: ${(conveneMemory.bytesPerConnection / 1024).toFixed(2)} KiB (${conveneMemory.connections} open), ratio ${ratio(conveneMemory.bytesPerConnection, bareMemory.bytesPerConnection)}`);
    }

    if (fanout > 0) {
      // Two instances, rooms of 100 with every room's members alternating between them; one sender per room, on
      // instance A for even rooms and B for odd ones, so half of every room hears each message through the bus.
      const b = await instance();
      instances.push(b);
      const pair = await startBarePair();
      const fjob = { messages: Number(args['fanout-messages']), rate: Number(args['fanout-rate']), burst: 0 };
      const senders = (targets: Target[]) => {
        const first = new Map<number, number>();
        targets.forEach((t, i) => {
          if (!first.has(t.room)) first.set(t.room, i + (t.room % 2)); // member 0 is on A, member 1 on B
        });
        return [...first.values()];
      };
      console.log(`fan-out: ${fanout} clients in rooms of 100 over two instances, ${fjob.messages} messages at ${fjob.rate}/s (one sender per room, in turn)`);
      const bareTargets = await roomsOf(fanout, () => pair.urls, true);
      const conveneTargets = await roomsOf(fanout, () => [a.url, b.url], false);
      const bareResult = await ask<BroadcastResult>(child, { kind: 'broadcast', targets: bareTargets, senders: senders(bareTargets), ...fjob });
      await sleep(2000);
      const conveneResult = await ask<BroadcastResult>(child, { kind: 'broadcast', targets: conveneTargets, senders: senders(conveneTargets), ...fjob });
      await a.drained();
      await b.drained();
      await pair.close();
      console.log(`  deliveries: Convene ${conveneResult.deliveries}/${conveneResult.expected}, bare ${bareResult.deliveries}/${bareResult.expected}`);
      for (const k of ['p50', 'p99', 'max'] as const) {
        console.log(`  ${k} latency (ms): Convene ${conveneResult[k].toFixed(2)}, bare ${bareResult[k].toFixed(2)}, ratio ${ratio(conveneResult[k], bareResult[k])}`);
      }
    }
  } finally {
    child.kill();
    await bare.close();
    for (const i of instances) await i.close();
    await stopPostgres();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }
}

if (args.role === 'server') {
  main().then(
    () => process.exit(),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
