import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { v7 as uuidv7 } from 'uuid';
import { MemoryStore, type Options } from 'express-rate-limit';
import { WebSocketServer, type ServerOptions } from 'ws';
import { CloseCode } from '../../generated/asyncapi.ts';
import { ApiError, errorBody, rateLimited, serviceUnavailable } from '../domain/errors.ts';
import type { AuthFailureLimiter } from '../http/address-limit.ts';
import { addressKey } from '../http/client-address.ts';
import { toApiError } from '../http/error-responses.ts';
import type { Logger } from '../logger.ts';
import { metrics } from '../metrics/metrics.ts';
import type { EmptyRoomTimer } from './realtime.ports.ts';
import { Connection, ConveneSocket, SocketSweeps, type ConnectionContext } from './connection.ts';
import { ParticipantBudgets } from './participant-budgets.ts';
import type { PgRoomBus } from './pg-bus.ts';
import * as presence from './presence.ts';
import { RoomCommands } from './room-commands.ts';
import { RoomHub } from './room-hub.ts';
import { authorizeUpgrade, SUBPROTOCOL, type UpgradeAuthDeps } from './upgrade-auth.ts';

export const WS_PATH = '/api/v1/ws';

export interface GatewayOptions {
  /** Ping interval; a socket that has not answered the previous ping by the next one is dropped. */
  pingIntervalMs?: number;
  /** Largest frame accepted (a 4000-character chat message is at most ~16 KB of UTF-8, escaped ~24 KB). */
  maxPayload?: number;
  /**
   * Client messages a participant may send per second on average, and in a burst, all its sockets on this instance
   * together (docs/decisions.md §16); the socket that goes beyond is closed 1008.
   */
  flood?: { perSecond: number; burst: number };
  /**
   * How long a socket the server closed may take to answer the close frame before it is destroyed
   * (docs/decisions.md §16: within 5 s).
   */
  closeTimeoutMs?: number;
  /** Identifies this process's rows in realtime_connections. */
  instanceId?: string;
  /** Live sockets a participant may hold at once, on all instances; one more closes the oldest with 4006. */
  maxSocketsPerParticipant?: number;
  /** Upgrades one client address may attempt per minute on this instance; beyond that 429 before the upgrade. */
  upgradesPerAddressPerMinute?: number;
  /**
   * After how long without a heartbeat a socket's presence row belongs to a dead instance (WS_PRESENCE_STALE_AFTER); this
   * instance refreshes its own rows every third of it and reaps the stale rows of others as often.
   */
  presenceStaleAfterSeconds?: number;
}

export interface GatewayDeps extends UpgradeAuthDeps {
  bus: PgRoomBus;
  timer: EmptyRoomTimer;
  logger: Logger;
  /**
   * The API's limiter of failed credentials per client address (docs/decisions.md §14), shared with the HTTP app: a refused
   * token counts, and an address over the limit is refused before its token is checked. Also names the client address
   * (TRUST_PROXY). Without it (tests), the socket's peer is the address and failures are not counted.
   */
  authFailures?: AuthFailureLimiter;
}

export interface Gateway {
  readonly hub: RoomHub;
  readonly instanceId: string;
  /** Closes every socket with 1001 and waits for their departures to be recorded. */
  close(): Promise<void>;
}

const DEFAULTS = {
  pingIntervalMs: 30_000,
  maxPayload: 64 * 1024,
  flood: { perSecond: 10, burst: 30 },
  closeTimeoutMs: 4000,
  maxSocketsPerParticipant: 5,
  upgradesPerAddressPerMinute: 120,
  presenceStaleAfterSeconds: 30,
};

/**
 * Attaches the room WebSocket to the API's HTTP server (docs/decisions.md §11). The socket layer only: upgrade, authentication
 * (upgrade-auth.ts), lifecycle; a socket's state, heartbeat and flood limit are connection.ts; what a member may do is
 * room-commands.ts. Call bus.listen() too.
 */
export function attachGateway(server: Server, deps: GatewayDeps, options: GatewayOptions = {}): Gateway {
  const opts = { ...DEFAULTS, ...options };
  const instanceId = options.instanceId ?? uuidv7();
  const hub = new RoomHub();
  const pending = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    pending.add(p);
    void p.finally(() => pending.delete(p)).catch(() => {});
    return p;
  };
  // `closeTimeout` (ws 8.19+) is missing from @types/ws: a closed door is destroyed within 5 s (docs/decisions.md §16) by
  // ws's own timer, armed when the close frame is sent, instead of its default 30 s.
  const wssOptions: ServerOptions<typeof ConveneSocket> & { closeTimeout: number } = {
    WebSocket: ConveneSocket,
    noServer: true,
    maxPayload: opts.maxPayload,
    clientTracking: false,
    closeTimeout: opts.closeTimeoutMs,
    // The token subprotocol is never echoed: only `convene` is selected.
    handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
  };
  const wss = new WebSocketServer(wssOptions);
  let closing = false;

  const commands = new RoomCommands({
    bus: deps.bus,
    timer: deps.timer,
    instanceId,
    maxSocketsPerParticipant: opts.maxSocketsPerParticipant,
    staleAfterSeconds: opts.presenceStaleAfterSeconds,
  });
  // Upgrades per address and minute, counted in this instance's memory: a reconnect storm or a scan is stopped before
  // any token is verified or row written. (Failed tokens are counted across instances by deps.authFailures.)
  const upgrades = new MemoryStore();
  upgrades.init({ windowMs: 60_000 } as Options);
  const addressOf = (req: IncomingMessage) => deps.authFailures?.keyOf(req) ?? `addr:${addressKey(req.socket.remoteAddress ?? 'unknown')}`;
  // What every connection shares, and one ping and one token-expiry timer for all of them (connection.ts).
  const closed = (connection: Connection) => {
    hub.remove(connection);
    metrics.websocketClosed();
  };
  const budgets = new ParticipantBudgets(opts.flood);
  const context: ConnectionContext = { commands, logger: deps.logger, budgets, track, closed };
  const sweeps = new SocketSweeps(() => hub.all(), opts.pingIntervalMs);
  const unsubscribe = deps.bus.subscribe((batch) => hub.deliver(batch));
  // Batches missed here never reach these sockets: make every client reconnect, and resume (docs/decisions.md §11).
  const unsubscribeLost = deps.bus.onLost(() => hub.all().forEach((m) => m.ws.close(CloseCode.SERVER_SHUTDOWN, 'Reconnect')));

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const requestId = uuidv7();
    socket.on('error', destroy);
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== WS_PATH) return refuse(socket, new ApiError('NOT_FOUND', 'Route not found'), requestId);
    if (closing) return refuse(socket, serviceUnavailable('Shutting down', 1), requestId);
    // A socket opened now would get its snapshot and then miss the events committed until the bus listens again.
    if (!deps.bus.listening) return refuse(socket, serviceUnavailable('Room events are reconnecting; retry shortly', 1), requestId);
    const address = addressOf(req);
    admit(address).then(
      (refusal) => {
        if (refusal) refuse(socket, refusal, requestId);
        else upgrade(req, socket, head, url, address, requestId);
      },
      (err: unknown) => {
        deps.logger.error({ err }, 'WebSocket upgrade failed');
        refuse(socket, new ApiError('INTERNAL_ERROR', 'Internal error'), requestId);
      },
    );
  };
  server.on('upgrade', onUpgrade);

  /** The address's upgrade rate and failed credentials, before the token is looked at. */
  async function admit(address: string): Promise<ApiError | undefined> {
    const { totalHits, resetTime } = await upgrades.increment(address);
    if (totalHits > opts.upgradesPerAddressPerMinute) {
      return rateLimited(`More than ${opts.upgradesPerAddressPerMinute} WebSocket upgrades per minute from this address`, resetTime?.getTime() ?? Date.now() + 60_000);
    }
    return deps.authFailures?.refusal(address);
  }

  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL, address: string, requestId: string): void {
    const resumeFrom = url.searchParams.get('resume_from');
    if (resumeFrom !== null && !/^[0-9]{1,15}$/.test(resumeFrom)) {
      return refuse(socket, new ApiError('VALIDATION_ERROR', 'resume_from must be a non-negative integer (the last seq received)'), requestId);
    }
    authorizeUpgrade(deps, req, url).then(
      (identity) => {
        if (socket.destroyed) return;
        wss.handleUpgrade(req, socket, head, (ws) => {
          socket.off('error', destroy); // the socket's errors are ws's to handle now
          open(new Connection(ws, { ...identity, connectionId: uuidv7() }, context, resumeFrom === null ? undefined : Number(resumeFrom)));
        });
      },
      async (err: unknown) => {
        if (err instanceof ApiError) deps.logger.info({ request_id: requestId, code: err.code, origin: req.headers.origin }, 'WebSocket upgrade refused');
        else deps.logger.error({ err }, 'WebSocket upgrade failed');
        // As on the HTTP API: a database that cannot be reached is 503 + Retry-After, anything else unknown a 500.
        let answer = toApiError(err);
        // A refused token is a failed credential of the address, as on the HTTP API.
        if (answer.status === 401 && deps.authFailures) {
          answer = await deps.authFailures.count(address).then(
            (refused) => refused ?? answer,
            (unavailable: ApiError) => unavailable,
          );
        }
        refuse(socket, answer, requestId);
      },
    );
  }

  function open(connection: Connection): void {
    hub.add(connection);
    metrics.websocketOpened();
    sweeps.added(connection);
    connection.join();
  }

  // Keeps this instance's sockets counted as present, cleans up after instances that died, and forgets the message
  // budgets of participants gone from this instance once refilled.
  const keepAlive = setInterval(() => {
    budgets.prune();
    void track(commands.heartbeat().catch((err) => deps.logger.warn({ err }, 'presence heartbeat failed')));
  }, presence.heartbeatMs(opts.presenceStaleAfterSeconds));
  keepAlive.unref();

  return {
    hub,
    instanceId,
    async close() {
      closing = true;
      clearInterval(keepAlive);
      sweeps.stop();
      server.off('upgrade', onUpgrade);
      for (const member of hub.all()) member.ws.close(CloseCode.SERVER_SHUTDOWN, 'Server shutting down');
      // Sockets that do not complete the closing handshake in time are cut.
      const deadline = setTimeout(() => hub.all().forEach((m) => m.ws.terminate()), 3000);
      while (hub.size > 0 || pending.size > 0) await Promise.race([...[...pending].map((p) => p.catch(() => {})), new Promise((r) => setTimeout(r, 50))]);
      clearTimeout(deadline);
      unsubscribe();
      unsubscribeLost();
      upgrades.shutdown();
      wss.close();
    },
  };
}

function destroy(this: Duplex): void {
  this.destroy();
}

/** Refuses an upgrade with a plain HTTP response carrying the JSON error envelope (never a WebSocket close). */
function refuse(socket: Duplex, err: ApiError, requestId: string): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(errorBody(err, requestId));
  const headers = [
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    ...Object.entries(err.headers).map(([name, value]) => `${name}: ${value}`),
    'Connection: close',
  ];
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}
