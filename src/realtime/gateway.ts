import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { v7 as uuidv7 } from 'uuid';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { CloseCode, type ClientMessage, type ErrorData, type ServerMessage } from '../../generated/asyncapi.ts';
import { ApiError, errorBody } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import { metrics } from '../metrics/metrics.ts';
import type { EmptyRoomTimer } from './empty-room-timer.ts';
import { errorMessage, parseClientMessage, type ParsedClientMessage } from './messages.ts';
import { chatData, type PgRoomBus, type RoomAction } from './pg-bus.ts';
import * as presence from './presence.ts';
import { Member, RoomHub } from './room-hub.ts';
import { authorizeUpgrade, SUBPROTOCOL, type UpgradeAuthDeps } from './upgrade-auth.ts';

export const WS_PATH = '/api/v1/ws';

export interface GatewayOptions {
  /** Ping interval; a socket that has not answered the previous ping by the next one is dropped. */
  pingIntervalMs?: number;
  /** Largest frame accepted (a 4000-character chat message is at most ~16 KB of UTF-8, escaped ~24 KB). */
  maxPayload?: number;
  /** Client messages allowed per second on average, and in a burst; beyond that the socket is closed 1008. */
  flood?: { perSecond: number; burst: number };
  /** Identifies this process's rows in realtime_connections. */
  instanceId?: string;
}

export interface GatewayDeps extends UpgradeAuthDeps {
  bus: PgRoomBus;
  timer: EmptyRoomTimer;
  logger: Logger;
}

export interface Gateway {
  readonly hub: RoomHub;
  readonly instanceId: string;
  /** Closes every socket with 1001 and waits for their departures to be recorded. */
  close(): Promise<void>;
}

/** Client messages taken from a socket's inbox at a time, and the most it may hold before it counts as flooding. */
const MAX_BATCH = 100;
const MAX_INBOX = 1000;
/** Estimated NOTIFY bytes per chat transaction (text plus ~170 bytes of envelope each): under PostgreSQL's 8000. */
const CHAT_BATCH_BYTES = 7000;
const CHAT_ENVELOPE_BYTES = 170;

const DEFAULTS = { pingIntervalMs: 30_000, maxPayload: 64 * 1024, flood: { perSecond: 10, burst: 30 } };

/** Attaches the room WebSocket to the API's HTTP server (DECISIONS §11). Call bus.listen() too. */
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
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: opts.maxPayload,
    clientTracking: false,
    // The token subprotocol is never echoed: only `convene` is selected.
    handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
  });
  let closing = false;

  const unsubscribe = deps.bus.subscribe((batch) => hub.deliver(batch));
  // Missed batches cannot be replayed: make every client reconnect and start again from a fresh snapshot.
  const unsubscribeLost = deps.bus.onLost(() => {
    for (const member of hub.all()) member.ws.close(CloseCode.SERVER_SHUTDOWN, 'Reconnect');
  });

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const requestId = uuidv7();
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== WS_PATH) return refuse(socket, new ApiError('NOT_FOUND', 'Route not found'), requestId);
    if (closing) return refuse(socket, new ApiError('SERVICE_UNAVAILABLE', 'Shutting down'), requestId);
    authorizeUpgrade(deps, req, url).then(
      (identity) => {
        if (socket.destroyed) return;
        wss.handleUpgrade(req, socket, head, (ws) => open(ws, new Member(ws, { ...identity, connectionId: uuidv7() })));
      },
      (err: unknown) => {
        if (!(err instanceof ApiError)) deps.logger.error({ err }, 'WebSocket upgrade failed');
        refuse(socket, err instanceof ApiError ? err : new ApiError('INTERNAL_ERROR', 'Internal error'), requestId);
      },
    );
  };
  server.on('upgrade', onUpgrade);

  function open(ws: WebSocket, member: Member): void {
    const { id } = member;
    hub.add(member);
    metrics.websocketOpened();
    let alive = true;
    ws.on('pong', () => (alive = true));
    const pinger = setInterval(() => {
      if (!alive) return void ws.terminate();
      alive = false;
      ws.ping();
    }, opts.pingIntervalMs);
    pinger.unref();
    // A token is valid only until its exp, also on an open socket (issue 10): close with 4005 then. setTimeout
    // cannot wait longer than ~24.8 days; access tokens live at most a day (PARTICIPANT_TOKEN_TTL_SECONDS).
    const expiry = setTimeout(() => ws.close(CloseCode.TOKEN_EXPIRED, 'Access token expired'), Math.max(0, id.expiresAt - Date.now()));
    expiry.unref();

    const ready = track(
      joinRoom(member).catch((err) => {
        deps.logger.error({ err, roomId: id.roomId }, 'joining the room failed');
        ws.close(CloseCode.INTERNAL_ERROR, 'Internal error');
      }),
    );
    // One client's messages are handled in the order it sent them, after its snapshot. The inbox is bounded by the
    // flood limit; the cap is a second fence for generous limits.
    const inbox: (string | null)[] = [];
    let draining = false;
    const drain = async () => {
      await ready;
      while (inbox.length > 0) {
        const texts = inbox.splice(0, MAX_BATCH);
        await handleBatch(member, texts).catch((err) => {
          deps.logger.error({ err, roomId: id.roomId }, 'WebSocket message failed');
          member.send(JSON.stringify(errorMessage({ code: 'INTERNAL_ERROR', message: 'The message could not be processed' })));
        });
      }
      draining = false; // no await between the empty check and here: a message arriving now starts a new drain
    };
    const bucket = { tokens: opts.flood.burst, at: Date.now() };
    ws.on('message', (raw: RawData, isBinary: boolean) => {
      const now = Date.now();
      bucket.tokens = Math.min(opts.flood.burst, bucket.tokens + ((now - bucket.at) / 1000) * opts.flood.perSecond);
      bucket.at = now;
      if (bucket.tokens < 1 || inbox.length >= MAX_INBOX) return void ws.close(CloseCode.POLICY_VIOLATION, 'Too many messages');
      bucket.tokens -= 1;
      inbox.push(isBinary ? null : raw.toString());
      if (!draining) {
        draining = true;
        void drain();
      }
    });
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      clearInterval(pinger);
      clearTimeout(expiry);
      hub.remove(member);
      metrics.websocketClosed();
      track(ready.then(() => leaveRoom(member)).catch((err) => deps.logger.error({ err, roomId: id.roomId }, 'recording a departure failed')));
    });
  }

  async function joinRoom(member: Member): Promise<void> {
    const { id } = member;
    const { seq, result } = await deps.bus.append(id.roomId, async (sql) => {
      const outcome = await presence.join(sql, { id: id.connectionId, tenantId: id.tenantId, roomId: id.roomId, participantId: id.participantId, instanceId });
      const actions: RoomAction[] = outcome.ok && outcome.becamePresent ? [{ k: 'send', m: { event: 'participant.joined', data: outcome.me } }] : [];
      return { actions, result: outcome };
    });
    if (!result.ok) {
      // Ended or removed between the upgrade checks and now.
      member.ws.close(result.reason === 'room-ended' ? CloseCode.ROOM_ENDED : CloseCode.PARTICIPANT_REMOVED, result.reason);
      return;
    }
    const snapshot: ServerMessage = {
      event: 'room.snapshot',
      data: { participants: result.participants, raised_hands: result.raisedHands, recording: result.recording },
    };
    member.start(seq, JSON.stringify(snapshot));
    // Not awaited: the socket's messages must not wait on Temporal (the signal carries seq, so late ones are ignored);
    // the timer owns its calls in flight and cancels them when the services close.
    if (result.becamePresent && result.participants.length === 1) void deps.timer.presenceChanged(id.tenantId, id.roomId, true, seq);
  }

  async function leaveRoom(member: Member): Promise<void> {
    const { id } = member;
    // Removed, ended, deleted or reaped: whoever deleted the row announced the departure. Checking first spares the
    // room a transaction per socket when a whole room closes at once.
    const row = await deps.bus.pool.query('select 1 from realtime_connections where id = $1', [id.connectionId]);
    if (row.rowCount === 0) return;
    const { seq, result } = await deps.bus.append(id.roomId, async (sql) => {
      const actions = await presence.leave(sql, id.connectionId, id.participantId);
      const nowEmpty = actions.length > 0 && (await presence.isRoomActive(sql, id.roomId)) && (await presence.presentCount(sql, id.roomId)) === 0;
      return { actions, result: nowEmpty };
    });
    if (result) void deps.timer.presenceChanged(id.tenantId, id.roomId, false, seq);
  }

  /**
   * Consecutive chat messages of one sender are stored and announced in one transaction (group commit): a fast sender
   * costs the room one transaction per batch instead of one per message, and the order is unchanged.
   */
  async function handleBatch(member: Member, texts: (string | null)[]): Promise<void> {
    let chats: string[] = [];
    let bytes = 0;
    const flush = async () => {
      if (chats.length === 0) return;
      const batch = chats;
      chats = [];
      bytes = 0;
      await sendChats(member, batch);
    };
    for (const text of texts) {
      const parsed: ParsedClientMessage =
        text === null ? { ok: false, error: { code: 'INVALID_MESSAGE', message: 'Messages are UTF-8 text frames' } } : parseClientMessage(text);
      if (parsed.ok && parsed.message.event === 'chat.send' && member.id.role !== 'viewer') {
        const chat = parsed.message.data.text;
        // A batch's NOTIFY payload stays under PostgreSQL's limit; a single long message travels by reference (pg-bus.ts).
        const size = Buffer.byteLength(chat) + CHAT_ENVELOPE_BYTES;
        if (bytes + size > CHAT_BATCH_BYTES) await flush();
        chats.push(chat);
        bytes += size;
        continue;
      }
      await flush();
      await handle(member, parsed);
    }
    await flush();
  }

  async function sendChats(member: Member, texts: string[]): Promise<void> {
    const { id } = member;
    const ids = texts.map(() => uuidv7());
    const { result: stored } = await deps.bus.append(id.roomId, async (sql) => {
      const room = await sql.query<{ chat_enabled: boolean; status: string }>('select chat_enabled, status from rooms where id = $1', [id.roomId]);
      if (!room.rows[0]?.chat_enabled || room.rows[0].status !== 'active') return { actions: [], result: false };
      const { rows } = await sql.query(
        `insert into chat_messages (id, tenant_id, room_id, sender_id, text, created_at)
         select m.id, $2, $3, $4, m.text, clock_timestamp() from unnest($1::uuid[], $5::text[]) as m (id, text)
         returning id, sender_id, text, created_at`,
        [ids, id.tenantId, id.roomId, id.participantId, texts],
      );
      const byId = new Map(rows.map((row) => [row.id as string, row]));
      const actions: RoomAction[] = ids.map((messageId) => ({ k: 'send', m: { event: 'chat.message', data: chatData(byId.get(messageId)) } }));
      return { actions, result: true };
    });
    if (!stored) for (const _ of texts) member.send(JSON.stringify(errorMessage({ code: 'CHAT_DISABLED', message: 'Chat is disabled in this room' })));
  }

  async function handle(member: Member, parsed: ParsedClientMessage): Promise<void> {
    const reply = (message: ServerMessage) => member.send(JSON.stringify(message));
    const refuse = (error: ErrorData) => reply(errorMessage(error));
    if (!parsed.ok) return refuse(parsed.error);
    const message: ClientMessage = parsed.message;
    const { id } = member;
    switch (message.event) {
      case 'ping':
        return reply({ event: 'pong', data: {} });
      case 'chat.send':
        return refuse({ code: 'FORBIDDEN', message: 'Viewers cannot chat' }); // others' chat is batched above
      case 'hand.raise':
        if (id.role === 'viewer') return refuse({ code: 'FORBIDDEN', message: 'Viewers cannot raise a hand' });
        await deps.bus.append(id.roomId, async (sql) => {
          const raised = await sql.query(
            `insert into raised_hands (participant_id, room_id, raised_at) values ($1, $2, clock_timestamp()) on conflict do nothing`,
            [id.participantId, id.roomId],
          );
          const actions: RoomAction[] = raised.rowCount ? [{ k: 'send', m: { event: 'hand.raised', data: { participant_id: id.participantId } } }] : [];
          return { actions, result: undefined };
        });
        return;
      case 'hand.lower':
        await deps.bus.append(id.roomId, async (sql) => {
          const lowered = await sql.query('delete from raised_hands where participant_id = $1', [id.participantId]);
          const actions: RoomAction[] = lowered.rowCount ? [{ k: 'send', m: { event: 'hand.lowered', data: { participant_id: id.participantId } } }] : [];
          return { actions, result: undefined };
        });
        return;
    }
  }

  // Keeps this instance's sockets counted as present, and cleans up after instances that died.
  const keepAlive = setInterval(() => {
    track(
      (async () => {
        await presence.heartbeat(deps.bus.pool, instanceId);
        for (const roomId of await presence.roomsWithStaleConnections(deps.bus.pool)) {
          const { seq, result } = await deps.bus.append(roomId, async (sql) => {
            const actions = await presence.reapRoom(sql, roomId);
            const room = await sql.query<{ tenant_id: string; status: string }>('select tenant_id, status from rooms where id = $1', [roomId]);
            const nowEmpty = actions.length > 0 && room.rows[0]?.status === 'active' && (await presence.presentCount(sql, roomId)) === 0;
            return { actions, result: nowEmpty ? room.rows[0].tenant_id : null };
          });
          if (result) void deps.timer.presenceChanged(result, roomId, false, seq);
        }
      })().catch((err) => deps.logger.warn({ err }, 'presence heartbeat failed')),
    );
  }, presence.HEARTBEAT_SECONDS * 1000);
  keepAlive.unref();

  return {
    hub,
    instanceId,
    async close() {
      closing = true;
      clearInterval(keepAlive);
      server.off('upgrade', onUpgrade);
      for (const member of hub.all()) member.ws.close(CloseCode.SERVER_SHUTDOWN, 'Server shutting down');
      // Sockets that do not complete the closing handshake in time are cut.
      const deadline = setTimeout(() => hub.all().forEach((m) => m.ws.terminate()), 3000);
      while (hub.size > 0 || pending.size > 0) await Promise.race([...[...pending].map((p) => p.catch(() => {})), new Promise((r) => setTimeout(r, 50))]);
      clearTimeout(deadline);
      unsubscribe();
      unsubscribeLost();
      wss.close();
    },
  };
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
    'Connection: close',
  ];
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}
