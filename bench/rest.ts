// Benchmark (not a test): the REST hot paths and the WebSocket upgrade of the real API process against a bare
// `node:http` + `pg` server doing the same essential work on the same database. (Goals and results: BENCHMARKS.md,
// "REST hot paths".)
//
//   npx node bench/rest.ts [--runs 3] [--seconds 5] [--connections 32] [--cases get-room-key,get-room-bearer,...]
//
// Started here, in a temporary folder removed at the end: PostgreSQL (scripts/stack/postgres.ts, fsync off as the tests
// use) and the Temporal dev server (the API signals the empty-room timer when a participant is added, as in
// production), then Convene as `node src/main.ts api` (the development configuration, LOG_LEVEL=info, its log going to
// a file) and the bare server (this file with `--role bare`), each a child process of its own with a pool of 10
// connections. The load comes from autocannon in this process, `--connections` at a time.
//
// Cases (each a request Convene answers 2xx, the bare server the same shape of JSON):
//   get-room-key     GET /api/v1/rooms/{id} with X-API-Key. Bare: tenant by key hash, room by id and tenant,
//                    participant count (three queries).
//   get-room-bearer  the same with a participant's auth_token. Bare: EdDSA verify (jose), participant still in its
//                    room, room, count.
//   list-rooms       GET /api/v1/rooms (20 rooms, the default page). Bare: tenant, the page, the total, the counts.
//   add-participant  POST /api/v1/rooms/{id}/participants. Bare: tenant; in a transaction the room locked, its
//                    participant count checked against the limit and the insert; the refresh token row; three EdDSA
//                    signatures (access, auth, refresh). The room is emptied (one SQL delete) before each measurement,
//                    so both servers start from the same room.
//   upgrade          the WebSocket upgrade with a participant access token (subprotocol token.<jwt>), timed from the
//                    request to `open`, then closed; `--connections` clients loop. Bare: `ws` with the same checks
//                    before the upgrade (verify, tenant, room active, participant current) and a snapshot message.
// Rounds are interleaved: per run, every case on both servers, the order of the two servers alternating; the upgrade
// case's runs come last, after all the others' (see below). Every measurement is preceded by a warm-up of one second.
// Reported per case: req/s, p50 and p99 latency (ms) per run, the ratio Convene / bare per run, and the medians.
// Results: BENCHMARKS.md.
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import pg from 'pg';
import { WebSocket, WebSocketServer } from 'ws';

const { values: args } = parseArgs({
  options: {
    role: { type: 'string', default: 'bench' },
    runs: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    cases: { type: 'string', default: 'get-room-key,get-room-bearer,list-rooms,add-participant,upgrade' },
    /** Leave the API's CPU profile (node --cpu-prof) in this folder; the bare server is not profiled. */
    'cpu-prof': { type: 'string' },
  },
});

const ISSUER = 'convene';
const AUDIENCE = 'convene-api';
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

// ---------------------------------------------------------------------------------------------------------------------
// The bare server: node:http + pg + jose + ws, nothing else.
// ---------------------------------------------------------------------------------------------------------------------

async function bare(): Promise<void> {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const jwk = JSON.parse(process.env.BARE_JWK!) as JWK;
  const privateKey = await importJWK(jwk, 'EdDSA');
  const publicKey = await importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }, 'EdDSA');
  const q = async (sql: string, params: unknown[]) => (await pool.query(sql, params)).rows;

  const sign = (claims: Record<string, unknown>, ttl: number) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'EdDSA', kid: 'bare', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${ttl}s`)
      .setJti(randomUUID())
      .sign(privateKey);
  const verify = async (token: string) =>
    (await jwtVerify(token, publicKey, { algorithms: ['EdDSA'], issuer: ISSUER, audience: AUDIENCE })).payload as Record<string, string>;
  const tenantByKey = async (key: string | undefined): Promise<string | undefined> => {
    if (!key) return undefined;
    const hash = createHash('sha256').update(key).digest('hex');
    return (await q('select id from tenants where api_key_hash = $1', [hash]))[0]?.id;
  };
  const roomView = (r: any, n: number) => ({
    id: r.id,
    name: r.name,
    status: r.status,
    config: { max_participants: r.max_participants, recording_enabled: r.recording_enabled, chat_enabled: r.chat_enabled },
    created_at: r.created_at.toISOString(),
    participant_count: n,
  });
  const send = (res: ServerResponse, status: number, body: unknown) => {
    const json = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
    res.end(json);
  };
  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  };

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url!, 'http://bare');
    const m = /^\/api\/v1\/rooms(?:\/([^/]+)(\/participants)?)?$/.exec(url.pathname);
    if (!m) return send(res, 404, { error: 'not found' });
    const [, roomId, participants] = m;
    let tenantId = await tenantByKey(req.headers['x-api-key'] as string | undefined);
    let participantRoom: string | undefined;
    if (!tenantId && req.headers.authorization?.startsWith('Bearer ')) {
      const claims = await verify(req.headers.authorization.slice(7)).catch(() => undefined);
      if (!claims || claims.typ !== 'auth') return send(res, 401, { error: 'unauthorized' });
      const current = await q('select id from participants where id = $1 and room_id = $2 and tenant_id = $3 and removed_at is null', [
        claims.participant_id,
        claims.room_id,
        claims.tenant_id,
      ]);
      if (current.length === 0) return send(res, 401, { error: 'unauthorized' });
      tenantId = claims.tenant_id;
      participantRoom = claims.room_id;
    }
    if (!tenantId) return send(res, 401, { error: 'unauthorized' });

    if (req.method === 'GET' && roomId && !participants) {
      if (participantRoom && participantRoom !== roomId) return send(res, 404, { error: 'not found' });
      const room = (await q('select * from rooms where id = $1 and tenant_id = $2', [roomId, tenantId]))[0];
      if (!room) return send(res, 404, { error: 'not found' });
      const n = (await q('select count(*)::int as n from participants where room_id = $1 and removed_at is null', [roomId]))[0].n;
      return send(res, 200, roomView(room, n));
    }
    if (req.method === 'GET' && !roomId && !participantRoom) {
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const rooms = await q('select * from rooms where tenant_id = $1 order by created_at desc, id desc limit $2 offset $3', [tenantId, limit, offset]);
      const total = (await q('select count(*)::int as n from rooms where tenant_id = $1', [tenantId]))[0].n;
      const counts = new Map<string, number>();
      const ids = rooms.map((r) => r.id);
      if (ids.length > 0) {
        const rows = await q('select room_id, count(*)::int as n from participants where room_id = any($1) and removed_at is null group by room_id', [ids]);
        for (const row of rows) counts.set(row.room_id, row.n);
      }
      return send(res, 200, { rooms: rooms.map((r) => roomView(r, counts.get(r.id) ?? 0)), total, limit, offset });
    }
    if (req.method === 'POST' && roomId && participants && !participantRoom) {
      const body = await readBody(req);
      const client = await pool.connect();
      let participant: any;
      try {
        await client.query('begin');
        const room = (await client.query('select * from rooms where id = $1 and tenant_id = $2 for no key update', [roomId, tenantId])).rows[0];
        if (!room || room.status !== 'active') throw new Error('room');
        const n = (await client.query('select count(*)::int as n from participants where room_id = $1 and removed_at is null', [roomId])).rows[0].n;
        if (n >= room.max_participants) throw new Error('limit');
        participant = (
          await client.query(
            `insert into participants (id, tenant_id, room_id, display_name, external_user_id, role, joined_at)
             values ($1, $2, $3, $4, null, $5, now()) returning *`,
            [randomUUID(), tenantId, roomId, body.display_name, body.role ?? 'participant'],
          )
        ).rows[0];
        await client.query('commit');
      } catch (err) {
        await client.query('rollback');
        client.release();
        return send(res, 409, { error: String(err) });
      }
      client.release();
      const base = { sub: participant.id, tenant_id: tenantId, room_id: roomId, participant_id: participant.id, role: participant.role };
      const family = randomUUID();
      const [access, auth, refresh] = await Promise.all([
        sign({ ...base, typ: 'access' }, 3600),
        sign({ ...base, typ: 'auth' }, 3600),
        sign({ ...base, typ: 'refresh', fam: family }, 30 * 86400),
      ]);
      await q(
        `insert into refresh_tokens (jti, family_id, tenant_id, participant_id, expires_at, created_at) values ($1, $2, $3, $4, now() + interval '30 days', now())`,
        [randomUUID(), family, tenantId, participant.id],
      );
      return send(res, 201, {
        participant: { id: participant.id, display_name: participant.display_name, role: participant.role },
        access_token: access,
        auth_token: auth,
        refresh_token: refresh,
        token_type: 'Bearer',
        expires_in: 3600,
      });
    }
    return send(res, 404, { error: 'not found' });
  }

  const server = createServer((req, res) => {
    route(req, res).catch((err) => send(res, 500, { error: String(err) }));
  });
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (p) => (p.has('convene') ? 'convene' : false) });
  server.on('upgrade', (req, socket, head) => {
    void (async () => {
      const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
      const token = offered.find((p) => p.startsWith('token.'))?.slice(6);
      const claims = token ? await verify(token).catch(() => undefined) : undefined;
      const refuse = (status: number) => socket.end(`HTTP/1.1 ${status} No\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      if (!claims || claims.typ !== 'access') return refuse(401);
      if ((await q('select id from tenants where id = $1', [claims.tenant_id])).length === 0) return refuse(401);
      const room = (await q('select * from rooms where id = $1 and tenant_id = $2', [claims.room_id, claims.tenant_id]))[0];
      if (!room || room.status !== 'active') return refuse(404);
      const current = await q('select id from participants where id = $1 and room_id = $2 and tenant_id = $3 and removed_at is null', [
        claims.participant_id,
        claims.room_id,
        claims.tenant_id,
      ]);
      if (current.length === 0) return refuse(404);
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.send(JSON.stringify({ event: 'room.snapshot', data: { room: roomView(room, 0), participants: [] } }));
      });
    })().catch(() => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.send!({ port: (server.address() as { port: number }).port });
}

// ---------------------------------------------------------------------------------------------------------------------
// The benchmark
// ---------------------------------------------------------------------------------------------------------------------

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

async function http(url: string, opts: { method?: string; headers: Record<string, string>; body?: string }, seconds: number, connections: number): Promise<Measure> {
  const result = await autocannon({ url, connections, duration: seconds, method: (opts.method ?? 'GET') as 'GET', headers: opts.headers, body: opts.body });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx + result.timeouts };
}

/** `connections` clients each opening a socket, waiting for `open`, closing it, again, for `seconds`. */
async function upgrades(wsUrl: string, token: string, seconds: number, connections: number): Promise<Measure> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const one = () =>
    new Promise<void>((resolve) => {
      const t0 = performance.now();
      const ws = new WebSocket(wsUrl, ['convene', `token.${token}`]);
      ws.once('open', () => {
        latencies.push(performance.now() - t0);
        ws.close(1000);
      });
      ws.once('close', () => resolve());
      ws.once('error', () => {
        errors++;
        resolve();
      });
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) await one();
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  return { rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), errors };
}

async function main(): Promise<void> {
  const { startPostgres } = await import('../scripts/stack/postgres.ts');
  const { startTemporal } = await import('../scripts/stack/temporal.ts');
  const { freePort } = await import('../scripts/stack/ports.ts');
  const { launch, waitUntilReady } = await import('../scripts/stack/process.ts');
  const { projectRoot } = await import('../scripts/tools.ts');

  const RUNS = Number(args.runs);
  const SECONDS = Number(args.seconds);
  const CONNECTIONS = Number(args.connections);
  const cases = args.cases.split(',');
  const cleanups: Array<() => Promise<unknown>> = [];
  const cleanup = async () => {
    for (const stop of cleanups.splice(0).reverse()) await stop().catch((err) => log(`cleanup: ${String(err)}`));
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanup().then(() => process.exit(130)));

  try {
    const root = await mkdtemp(join(tmpdir(), 'convene-bench-rest-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    await chmod(root, 0o755); // PostgreSQL runs as an unprivileged user when we are root
    const [postgres, temporal] = await Promise.all([
      startPostgres({ dataDir: join(root, 'postgres'), password: randomBytes(12).toString('hex'), durable: false }),
      startTemporal({ dataDir: join(root, 'temporal'), persistent: false, uiPort: null, stopTimeoutMs: 2000 }),
    ]);
    cleanups.push(() => postgres.stop(), () => temporal.stop());
    await postgres.createDatabase('convene');
    const databaseUrl = postgres.url('convene');

    // --- Convene: the API process, development configuration -------------------------------------------------------
    const adminKey = `bench-admin-${randomBytes(12).toString('hex')}`;
    const apiPort = await freePort();
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const api = launch({
      name: 'api',
      command: process.execPath,
      args: [...(args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${args['cpu-prof']}`] : []), join(projectRoot, 'src', 'main.ts'), 'api'],
      cwd: projectRoot,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: 'development',
        LOG_LEVEL: 'info',
        PORT: String(apiPort),
        PUBLIC_BASE_URL: apiUrl,
        DATABASE_URL: databaseUrl,
        TEMPORAL_ADDRESS: temporal.address,
        ADMIN_API_KEY: adminKey,
        // The limiter still counts every request in PostgreSQL; its default (1,200/min) would refuse the load itself.
        RATE_LIMIT_PER_MINUTE: '1000000',
        AUTH_FAILURE_LIMIT_PER_MINUTE: '1000000',
      },
      logFile: join(root, 'api.log'),
      stopSignal: 'SIGTERM',
      stopTimeoutMs: 20_000,
    });
    cleanups.push(() => api.stop());
    await waitUntilReady(
      api,
      async () => {
        const res = await fetch(`${apiUrl}/healthz`);
        if (res.status !== 200) throw new Error(`healthz ${res.status}`);
      },
      { timeoutMs: 90_000, intervalMs: 250, logFile: join(root, 'api.log') },
    );

    // --- the bare server -------------------------------------------------------------------------------------------
    const { privateKey } = await generateKeyPair('EdDSA', { extractable: true });
    const bareJwk = await exportJWK(privateKey);
    const bareChild = fork(new URL(import.meta.url).pathname, ['--role', 'bare'], { env: { ...process.env, DATABASE_URL: databaseUrl, BARE_JWK: JSON.stringify(bareJwk) } });
    cleanups.push(async () => {
      bareChild.kill();
    });
    const barePort = await new Promise<number>((resolve, reject) => {
      bareChild.once('message', (m: { port: number }) => resolve(m.port));
      bareChild.once('exit', (code) => reject(new Error(`bare server exited ${code}`)));
    });
    const bareUrl = `http://127.0.0.1:${barePort}`;

    // --- the data --------------------------------------------------------------------------------------------------
    const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown, expect = 200) => {
      const res = await fetch(`${apiUrl}${path}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      const json = (await res.json().catch(() => null)) as any;
      if (res.status !== expect) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const tenant = (await call('POST', '/api/v1/tenants', { 'X-Admin-Key': adminKey }, { name: 'REST bench', max_participants_per_room: 10000 }, 201)).data;
    const key = { 'X-API-Key': tenant.api_key as string };
    const rooms: string[] = [];
    for (let i = 0; i < 20; i++) rooms.push((await call('POST', '/api/v1/rooms', key, { name: `bench-${i}`, config: { max_participants: 10000 } }, 201)).id);
    const roomId = rooms[0]!;
    for (let i = 0; i < 5; i++) await call('POST', `/api/v1/rooms/${roomId}/participants`, key, { display_name: `p${i}` }, 201);
    const member = await call('POST', `/api/v1/rooms/${roomId}/participants`, key, { display_name: 'member', role: 'host' }, 201);
    const addRoom = rooms[1]!;
    // The same participant's tokens, signed by the bare server's key.
    const bareSign = async (typ: string) =>
      new SignJWT({ sub: member.participant.id, tenant_id: tenant.id, room_id: roomId, participant_id: member.participant.id, role: 'host', typ })
        .setProtectedHeader({ alg: 'EdDSA', kid: 'bare', typ: 'JWT' })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('2h')
        .setJti(randomUUID())
        .sign(privateKey);
    const bareTokens = { auth: await bareSign('auth'), access: await bareSign('access') };
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    cleanups.push(() => db.end());

    type Server = 'convene' | 'bare';
    const measure = async (name: string, server: Server, seconds: number): Promise<Measure> => {
      const base = server === 'convene' ? apiUrl : bareUrl;
      const bearer = { Authorization: `Bearer ${server === 'convene' ? member.auth_token : bareTokens.auth}` };
      switch (name) {
        case 'get-room-key':
          return http(`${base}/api/v1/rooms/${roomId}`, { headers: key }, seconds, CONNECTIONS);
        case 'get-room-bearer':
          return http(`${base}/api/v1/rooms/${roomId}`, { headers: bearer }, seconds, CONNECTIONS);
        case 'list-rooms':
          return http(`${base}/api/v1/rooms`, { headers: key }, seconds, CONNECTIONS);
        case 'add-participant':
          await db.query('delete from refresh_tokens where participant_id in (select id from participants where room_id = $1)', [addRoom]);
          await db.query('delete from participants where room_id = $1', [addRoom]);
          return http(
            `${base}/api/v1/rooms/${addRoom}/participants`,
            { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: JSON.stringify({ display_name: 'Bench participant' }) },
            seconds,
            CONNECTIONS,
          );
        case 'upgrade':
          return upgrades(`${base.replace('http', 'ws')}/api/v1/ws`, server === 'convene' ? member.access_token : bareTokens.access, seconds, CONNECTIONS);
        default:
          throw new Error(`unknown case ${name}`);
      }
    };

    log(`Convene ${apiUrl}, bare ${bareUrl}; ${cpus().length} CPUs, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`);
    const results: Record<string, Record<Server, Measure[]>> = {};
    // The upgrade case's runs come after all the others: each upgrade leaves a loopback connection in TIME_WAIT (~17,000
    // after one round), and with those about, the HTTP cases that followed measured up to 40 % less for the bare server
    // (~10 % less for Convene), which flattered Convene in every run but the first.
    const phases = [cases.filter((c) => c !== 'upgrade'), cases.filter((c) => c === 'upgrade')];
    for (const phase of phases) for (let run = 0; run < RUNS; run++) {
      for (const name of phase) {
        const order: Server[] = (run + cases.indexOf(name)) % 2 === 0 ? ['convene', 'bare'] : ['bare', 'convene'];
        for (const server of order) {
          await measure(name, server, 1); // warm-up
          const m = await measure(name, server, SECONDS);
          ((results[name] ??= { convene: [], bare: [] })[server]).push(m);
          log(`run ${run + 1} ${name} ${server}: ${m.rps.toFixed(0)} req/s p50 ${m.p50.toFixed(2)} ms p99 ${m.p99.toFixed(2)} ms${m.errors ? ` (${m.errors} errors)` : ''}`);
        }
      }
    }

    const lines = ['', `| case | Convene req/s | bare req/s | ratio | Convene p99 ms | bare p99 ms | p99 ratio | runs |`, '|---|---|---|---|---|---|---|---|'];
    for (const name of cases) {
      const { convene, bare } = results[name]!;
      const ratios = convene.map((c, i) => c.rps / bare[i]!.rps);
      const p99s = convene.map((c, i) => c.p99 / bare[i]!.p99);
      const fmt = (xs: number[], d = 0) => `${median(xs).toFixed(d)} (${xs.map((x) => x.toFixed(d)).join(', ')})`;
      lines.push(
        `| ${name} | ${fmt(convene.map((m) => m.rps))} | ${fmt(bare.map((m) => m.rps))} | **${fmt(ratios, 2)}** | ${fmt(convene.map((m) => m.p99), 1)} | ${fmt(bare.map((m) => m.p99), 1)} | **${fmt(p99s, 2)}** | ${RUNS} |`,
      );
      const errors = [...convene, ...bare].reduce((n, m) => n + m.errors, 0);
      if (errors) lines.push(`|   ${name}: ${errors} errors or non-2xx answers |`);
    }
    lines.push('', `medians (per-run values in brackets); load average at the end ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await cleanup();
  }
}

if (args.role === 'bare') await bare();
else await main();
