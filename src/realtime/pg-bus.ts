import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../logger.ts';
import { createPool } from '../db/pool.ts';
import type { Sql } from '../db/sql.ts';
import { metrics } from '../metrics/metrics.ts';
import { ListenCheck } from './listen-check.ts';
import type { ChatMessageData, ServerMessage } from '../../generated/asyncapi.ts';

// The one module that owns cross-instance fan-out (docs/decisions.md §11). A room's events are produced inside a transaction
// that first bumps the room's counter in `room_event_sequences`: the row lock makes producers of one room take turns,
// and `pg_notify` inside that transaction is delivered at commit. PostgreSQL delivers notifications to every listener
// in commit order, so every API instance sees the events of a room in the same order. Each batch has its number (the
// turn, `seq` of RoomBatch); each event in it gets the room's next event number (`event_seq` of the same row, the
// `seq` clients see), and is kept in `room_events` for clients that resume (docs/decisions.md §11).

/** A room event as sent, numbered. */
export type RoomEvent = Exclude<ServerMessage, { event: 'room.snapshot' | 'pong' | 'error' | 'resync_required' }>;
/** A room event as its producer states it: the bus numbers it in the room's turn. */
export type RoomEventDraft = RoomEvent extends infer M ? (M extends unknown ? Omit<M, 'seq'> : never) : never;

type Closing =
  /** Close the sockets of one participant (removed 4003, replaced 4002). */
  | { k: 'close'; p: string; code: number; reason: string }
  /** Close every socket of the room (4004 after room.ended). */
  | { k: 'end'; code: number; reason: string }
  /** Close these sockets, by connection id (a participant's oldest, over its socket cap: 4006). */
  | { k: 'drop'; c: string[]; code: number; reason: string };

/** What every instance does with its own sockets of the room, in order, as a producer states it. */
export type RoomAction = { k: 'send'; m: RoomEventDraft } | Closing;

/** The same as announced: events numbered. */
export type AnnouncedAction =
  | { k: 'send'; m: RoomEvent }
  /** A chat message too large for a NOTIFY payload (8000 bytes): receivers load it from chat_messages. */
  | { k: 'chat'; id: string; s: number }
  | Closing;

export interface RoomBatch {
  roomId: string;
  seq: number;
  actions: AnnouncedAction[];
}

/** `eventSeq`: the room's last event number before this batch (0 before its first event). */
type Produce<T> = (sql: Sql, seq: number, eventSeq: number) => Promise<{ actions: RoomAction[]; result: T }>;

/** A batch committed (or to be, with appendIn): its number, the room's last event number after it, its events. */
export interface Appended<T> {
  seq: number;
  eventSeq: number;
  events: RoomEvent[];
  result: T;
}

/** The events after a client's `resume_from` (as sent), or why they cannot be sent (docs/decisions.md §11). */
export type History = { ok: true; messages: string[] } | { ok: false; reason: 'expired' | 'unknown' };

const CHANNEL = 'convene_room_events';
// NOTIFY refuses payloads of 8000 bytes or more; keep a margin.
const MAX_PAYLOAD_BYTES = 7900;
const RECONNECT_DELAY_MS = 1000;
/** How long close() waits for the LISTEN connection's goodbye. */
const CLOSE_WAIT_MS = 2000;
/** A room keeps at most its last this many events for clients that resume (docs/decisions.md §11). */
export const RESUME_MAX_EVENTS = 1000;

export interface PgRoomBusOptions {
  databaseUrl: string;
  logger: Logger;
  /** Connections for producing events (the listener has its own). */
  poolSize?: number;
  /** How long a room's events are kept for clients that resume (WS_RESUME_WINDOW); default 10 minutes. */
  resumeWindowSeconds?: number;
  /** How often the LISTEN connection is checked for silence (WS_LISTEN_CHECK_INTERVAL, listen-check.ts); default 5 s. */
  listenCheckIntervalSeconds?: number;
}

/**
 * The room bus as a port (docs/scaling.md): what the gateway, the room commands and the services need from
 * cross-instance fan-out. PgRoomBus is the one adapter today; a broker adapter (NATS, Redis Streams) implements the same
 * members. Its contract: `append`/`appendIn` give a room's batches consecutive numbers under the room's turn, taken in
 * the producer's transaction, and publish them only once that transaction commits (with a broker: an outbox row in the
 * same transaction, relayed in `seq` order); each event of a batch gets the room's next event number and is kept for
 * the resume window in the same transaction (`history` reads it back, in a turn); `subscribe` delivers every room's
 * batches in that order to every instance; `onLost` fires when batches may have been missed (the gateway then makes
 * its clients resynchronise).
 */
export interface RoomBus {
  append<T>(roomId: string, produce: Produce<T>): Promise<Appended<T>>;
  appendIn<T>(sql: Sql, roomId: string, produce: Produce<T>): Promise<Appended<T>>;
  history(sql: Sql, roomId: string, after: number, last: number): Promise<History>;
  trim(): Promise<void>;
  forget(roomId: string, sql?: Sql): Promise<void>;
  subscribe(listener: (batch: RoomBatch) => void): () => void;
  onLost(listener: () => void): () => void;
  /** Whether batches reach this instance now (the gateway refuses new sockets while they do not). */
  readonly listening: boolean;
  listen(): Promise<void>;
  close(): Promise<void>;
}

export class PgRoomBus implements RoomBus {
  readonly pool: pg.Pool;
  private readonly logger: Logger;
  private readonly databaseUrl: string;
  private readonly resumeWindowSeconds: number;
  private readonly listenCheckIntervalSeconds: number;
  private readonly listeners = new Set<(batch: RoomBatch) => void>();
  private readonly lostListeners = new Set<() => void>();
  private listener: pg.Client | undefined;
  /** When the last LISTEN connection was lost, while it is not back. */
  private lostAt: number | undefined;
  private retry: NodeJS.Timeout | undefined;
  /** This process's own channel, on which the listener checks that it still receives (listen-check.ts). */
  private readonly checkChannel = `convene_bus_check_${randomBytes(8).toString('hex')}`;
  private check: ListenCheck | undefined;
  private closing = false;
  /** Notifications are handled one after another (a chat reference needs a query), so order is kept. */
  private delivery: Promise<void> = Promise.resolve();

  constructor(options: PgRoomBusOptions) {
    this.databaseUrl = options.databaseUrl;
    this.logger = options.logger;
    this.resumeWindowSeconds = options.resumeWindowSeconds ?? 600;
    this.listenCheckIntervalSeconds = options.listenCheckIntervalSeconds ?? 5;
    this.pool = createPool({ name: 'room-bus', logger: this.logger, connectionString: options.databaseUrl, max: options.poolSize ?? 8 });
    metrics.watchPool('room-bus', this.pool);
  }

  /**
   * Runs `produce` in a transaction that holds the room's turn, then announces what it returned to every instance.
   * Returns the batch number: everything the producer read is the room's state as of that number.
   */
  async append<T>(roomId: string, produce: Produce<T>): Promise<Appended<T>> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const appended = await this.produceIn(client, roomId, produce);
      await client.query('COMMIT');
      countEvents(appended.events);
      return appended;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * The same inside the caller's open transaction (a service's): the room's turn is held, and the NOTIFY delivered,
   * when the caller commits, so the change and its announcement cannot part (a crash loses both or neither).
   */
  async appendIn<T>(sql: Sql, roomId: string, produce: Produce<T>): Promise<Appended<T>> {
    const appended = await this.produceIn(sql, roomId, produce);
    countEvents(appended.events); // counted before the caller's commit: a rolled-back change is counted all the same
    return appended;
  }

  private async produceIn<T>(sql: Sql, roomId: string, produce: Produce<T>): Promise<Appended<T>> {
    const { rows } = await sql.query<{ seq: string; event_seq: string }>(
      `insert into room_event_sequences (room_id, seq, event_seq) values ($1, 1, 0)
       on conflict (room_id) do update set seq = room_event_sequences.seq + 1 returning seq, event_seq`,
      [roomId],
    );
    const seq = Number(rows[0].seq);
    let eventSeq = Number(rows[0].event_seq);
    const { actions, result } = await produce(sql, seq, eventSeq);
    const events: RoomEvent[] = [];
    const announced = actions.map((a): AnnouncedAction => {
      if (a.k !== 'send') return a;
      const m = { event: a.m.event, seq: ++eventSeq, data: a.m.data } as RoomEvent;
      events.push(m);
      return { k: 'send', m };
    });
    if (events.length > 0) await this.keep(sql, roomId, events, eventSeq);
    if (announced.length > 0) await sql.query('select pg_notify($1, $2)', [CHANNEL, encode({ roomId, seq, actions: announced })]);
    return { seq, eventSeq, events, result };
  }

  /**
   * Records the room's last event number and keeps the events for clients that resume; the oldest beyond the cap go.
   * The events travel as one JSON parameter: a service's transaction (transactionSql) cannot bind arrays.
   */
  private async keep(sql: Sql, roomId: string, events: RoomEvent[], eventSeq: number): Promise<void> {
    await sql.query(
      `with kept as (
         insert into room_events (room_id, seq, message, created_at)
         select $1, e.seq, e.message, now() from jsonb_to_recordset($2::jsonb) as e (seq bigint, message text)
       ), counted as (
         update room_event_sequences set event_seq = $3::bigint where room_id = $1
       )
       delete from room_events where room_id = $1 and seq <= $3::bigint - ${RESUME_MAX_EVENTS}`,
      [roomId, JSON.stringify(events.map((m) => ({ seq: m.seq, message: JSON.stringify(m) }))), eventSeq],
    );
  }

  /**
   * The room's events after `after` up to `last` (its last event number, read in the turn the caller holds), as sent;
   * or why not: one of them is no longer kept (older than the window, or beyond the last 1,000), or `after` is not a
   * number of this room yet.
   */
  async history(sql: Sql, roomId: string, after: number, last: number): Promise<History> {
    if (after > last) return { ok: false, reason: 'unknown' };
    if (after === last) return { ok: true, messages: [] };
    if (last - after > RESUME_MAX_EVENTS) return { ok: false, reason: 'expired' };
    const { rows } = await sql.query<{ seq: string; message: string }>(
      `select seq, message from room_events
       where room_id = $1 and seq > $2 and seq <= $3 and created_at > now() - make_interval(secs => $4)
       order by seq`,
      [roomId, after, last, this.resumeWindowSeconds],
    );
    // Events are kept from some number up to the last: all of them are there when the first one is.
    if (rows.length !== last - after || Number(rows[0].seq) !== after + 1) return { ok: false, reason: 'expired' };
    return { ok: true, messages: rows.map((r) => r.message) };
  }

  /** Deletes the events older than the resume window, of every room (reading them also checks their age). */
  async trim(): Promise<void> {
    await this.pool.query('delete from room_events where created_at <= now() - make_interval(secs => $1)', [this.resumeWindowSeconds]);
  }

  /** Forgets a deleted room's counter and events (its last batch has been announced), in the caller's transaction if given. */
  async forget(roomId: string, sql: Sql = this.pool): Promise<void> {
    await sql.query('delete from room_event_sequences where room_id = $1', [roomId]);
    await sql.query('delete from room_events where room_id = $1', [roomId]);
  }

  /** Every batch of every room, in commit order. Call listen() to receive. */
  subscribe(listener: (batch: RoomBatch) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called when the LISTEN connection was lost: batches may have been missed, so sockets must resynchronise. */
  onLost(listener: () => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /** Whether batches reach this instance now: false from a lost LISTEN connection until it is back. */
  get listening(): boolean {
    return this.listener !== undefined;
  }

  /**
   * Opens the LISTEN connection. Once one is lost (or an attempt fails), the next attempt follows a second later, and
   * so on until one succeeds or close(): an outage of the database longer than one attempt must not end the retries.
   * A connection that falls silent without an error counts as lost too (listen-check.ts). `onLost` fires once per lost
   * connection, not per failed attempt. Rejects when this attempt fails.
   */
  async listen(): Promise<void> {
    if (this.closing) return;
    const client = new pg.Client({ connectionString: this.databaseUrl });
    let check: ListenCheck | undefined;
    client.on('notification', (msg) => {
      if (msg.channel === this.checkChannel) return check?.received(msg.payload ?? '');
      if (msg.channel !== CHANNEL || !msg.payload) return;
      const payload = msg.payload;
      this.delivery = this.delivery.then(() => this.deliver(payload)).catch((err) => this.logger.error({ err }, 'realtime batch lost'));
    });
    let gone = false;
    const lost = (err?: Error) => {
      if (gone) return; // 'error', 'end' and a failed connect may each report the same loss
      gone = true;
      check?.stop();
      const wasListening = this.listener === client;
      if (wasListening) this.listener = undefined;
      client.end().catch(() => {});
      if (this.closing) return;
      if (wasListening) {
        this.lostAt = Date.now();
        this.logger.error({ err }, 'realtime LISTEN connection lost; reconnecting');
        for (const l of this.lostListeners) l();
      }
      this.retry = setTimeout(() => void this.listen().catch(() => {}), RECONNECT_DELAY_MS);
      this.retry.unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      // One statement, so pg_stat_activity shows the connection as `LISTEN convene_room_events; …`.
      await client.query(`LISTEN ${CHANNEL}; LISTEN ${this.checkChannel}`);
    } catch (err) {
      lost(err as Error);
      throw err;
    }
    if (gone) throw new Error('realtime LISTEN connection lost while it was being opened');
    if (this.closing) {
      gone = true;
      await client.end().catch(() => {});
      return;
    }
    this.listener = client;
    check = new ListenCheck({
      send: async (token) => {
        await this.pool.query('select pg_notify($1, $2)', [this.checkChannel, token]);
      },
      stalled: () => lost(new Error('the LISTEN connection stopped delivering notifications')),
      everyMs: this.listenCheckIntervalSeconds * 1000,
    });
    this.check = check;
    check.start();
    if (this.lostAt !== undefined) this.logger.warn({ after_ms: Date.now() - this.lostAt }, 'realtime LISTEN connection back');
    this.lostAt = undefined;
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.retry);
    this.check?.stop();
    const listener = this.listener;
    this.listener = undefined;
    // Bounded: on a half-open connection (a partition) the server's goodbye never comes, and shutdown must not wait for it.
    let bound: NodeJS.Timeout | undefined;
    await Promise.race([listener?.end().catch(() => {}), new Promise((resolve) => (bound = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(bound);
    await this.delivery;
    await this.pool.end();
  }

  private async deliver(payload: string): Promise<void> {
    const batch = JSON.parse(payload) as RoomBatch;
    const refs = batch.actions.filter((a) => a.k === 'chat');
    if (refs.length > 0) {
      const { rows } = await this.pool.query(
        `select id, sender_id, text, created_at from chat_messages where id = any($1::uuid[])`,
        [refs.map((a) => (a as { id: string }).id)],
      );
      const byId = new Map(rows.map((r) => [r.id as string, chatData(r)]));
      // A message deleted with its room in the meantime is dropped: the room's sockets are closing anyway.
      batch.actions = batch.actions.flatMap((a): AnnouncedAction[] => {
        if (a.k !== 'chat') return [a];
        const data = byId.get(a.id);
        return data ? [{ k: 'send', m: { event: 'chat.message', seq: a.s, data } }] : [];
      });
    }
    for (const listener of this.listeners) listener(batch);
  }
}

function countEvents(events: RoomEvent[]): void {
  for (const m of events) metrics.roomEvent(m.event);
}

export function chatData(row: { id: string; sender_id: string; text: string; created_at: Date }): ChatMessageData {
  return { id: row.id, sender_id: row.sender_id, text: row.text, timestamp: row.created_at.toISOString() };
}

/** The NOTIFY payload; a chat message that would make it too large travels by reference. */
function encode(batch: RoomBatch): string {
  let payload = JSON.stringify(batch);
  if (Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES) return payload;
  const actions: AnnouncedAction[] = batch.actions.map((a) => (a.k === 'send' && a.m.event === 'chat.message' ? { k: 'chat', id: a.m.data.id, s: a.m.seq } : a));
  payload = JSON.stringify({ ...batch, actions });
  if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) throw new Error(`room batch too large for NOTIFY (${payload.length} characters)`);
  return payload;
}
