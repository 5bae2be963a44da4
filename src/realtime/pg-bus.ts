import pg from 'pg';
import type { Logger } from '../logger.ts';
import { createPool } from '../db/pool.ts';
import type { Sql } from '../db/sql.ts';
import { metrics } from '../metrics/metrics.ts';
import type { ChatMessageData, ServerMessage } from '../../generated/asyncapi.ts';

// The one module that owns cross-instance fan-out (docs/decisions.md §11). A room's events are produced inside a transaction
// that first bumps the room's counter in `room_event_sequences`: the row lock makes producers of one room take turns,
// and `pg_notify` inside that transaction is delivered at commit. PostgreSQL delivers notifications to every listener
// in commit order, so every API instance sees the events of a room in the same order, numbered by `seq`.

/** What every instance does with its own sockets of the room, in order. */
export type RoomAction =
  | { k: 'send'; m: ServerMessage }
  /** A chat message too large for a NOTIFY payload (8000 bytes): receivers load it from chat_messages. */
  | { k: 'chat'; id: string }
  /** Close the sockets of one participant (removed 4003, replaced 4002). */
  | { k: 'close'; p: string; code: number; reason: string }
  /** Close every socket of the room (4004 after room.ended). */
  | { k: 'end'; code: number; reason: string }
  /** Close these sockets, by connection id (a participant's oldest, over its socket cap: 4006). */
  | { k: 'drop'; c: string[]; code: number; reason: string };

export interface RoomBatch {
  roomId: string;
  seq: number;
  actions: RoomAction[];
}

type Produce<T> = (sql: Sql, seq: number) => Promise<{ actions: RoomAction[]; result: T }>;

const CHANNEL = 'convene_room_events';
// NOTIFY refuses payloads of 8000 bytes or more; keep a margin.
const MAX_PAYLOAD_BYTES = 7900;
const RECONNECT_DELAY_MS = 1000;

export interface PgRoomBusOptions {
  databaseUrl: string;
  logger: Logger;
  /** Connections for producing events (the listener has its own). */
  poolSize?: number;
}

/**
 * The room bus as a port (docs/scaling.md): what the gateway, the room commands and the services need from
 * cross-instance fan-out. PgRoomBus is the one adapter today; a broker adapter (NATS, Redis Streams) implements the same
 * members. Its contract: `append`/`appendIn` give a room's batches consecutive numbers under the room's turn, taken in
 * the producer's transaction, and publish them only once that transaction commits (with a broker: an outbox row in the
 * same transaction, relayed in `seq` order); `subscribe` delivers every room's batches in that order to every
 * instance; `onLost` fires when batches may have been missed (the gateway then makes its clients resynchronise).
 */
export interface RoomBus {
  append<T>(roomId: string, produce: Produce<T>): Promise<{ seq: number; result: T }>;
  appendIn<T>(sql: Sql, roomId: string, produce: Produce<T>): Promise<{ seq: number; result: T }>;
  forget(roomId: string, sql?: Sql): Promise<void>;
  subscribe(listener: (batch: RoomBatch) => void): () => void;
  onLost(listener: () => void): () => void;
  listen(): Promise<void>;
  close(): Promise<void>;
}

export class PgRoomBus implements RoomBus {
  readonly pool: pg.Pool;
  private readonly logger: Logger;
  private readonly databaseUrl: string;
  private readonly listeners = new Set<(batch: RoomBatch) => void>();
  private readonly lostListeners = new Set<() => void>();
  private listener: pg.Client | undefined;
  private closing = false;
  /** Notifications are handled one after another (a chat reference needs a query), so order is kept. */
  private delivery: Promise<void> = Promise.resolve();

  constructor(options: PgRoomBusOptions) {
    this.databaseUrl = options.databaseUrl;
    this.logger = options.logger;
    this.pool = createPool({ name: 'room-bus', logger: this.logger, connectionString: options.databaseUrl, max: options.poolSize ?? 8 });
  }

  /**
   * Runs `produce` in a transaction that holds the room's turn, then announces what it returned to every instance.
   * Returns the batch number: everything the producer read is the room's state as of that number.
   */
  async append<T>(roomId: string, produce: Produce<T>): Promise<{ seq: number; result: T }> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const { seq, result, actions } = await this.produceIn(client, roomId, produce);
      await client.query('COMMIT');
      countEvents(actions);
      return { seq, result };
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
  async appendIn<T>(sql: Sql, roomId: string, produce: Produce<T>): Promise<{ seq: number; result: T }> {
    const { seq, result, actions } = await this.produceIn(sql, roomId, produce);
    countEvents(actions); // counted before the caller's commit: a rolled-back change is counted all the same
    return { seq, result };
  }

  private async produceIn<T>(sql: Sql, roomId: string, produce: Produce<T>): Promise<{ seq: number; result: T; actions: RoomAction[] }> {
    const { rows } = await sql.query<{ seq: string }>(
      `insert into room_event_sequences (room_id, seq) values ($1, 1)
       on conflict (room_id) do update set seq = room_event_sequences.seq + 1 returning seq`,
      [roomId],
    );
    const seq = Number(rows[0].seq);
    const { actions, result } = await produce(sql, seq);
    if (actions.length > 0) await sql.query('select pg_notify($1, $2)', [CHANNEL, encode({ roomId, seq, actions })]);
    return { seq, result, actions };
  }

  /** Forgets a deleted room's counter (its last batch has been announced), in the caller's transaction if given. */
  async forget(roomId: string, sql: Sql = this.pool): Promise<void> {
    await sql.query('delete from room_event_sequences where room_id = $1', [roomId]);
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

  async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('notification', (msg) => {
      if (msg.channel !== CHANNEL || !msg.payload) return;
      const payload = msg.payload;
      this.delivery = this.delivery.then(() => this.deliver(payload)).catch((err) => this.logger.error({ err }, 'realtime batch lost'));
    });
    const lost = (err?: Error) => {
      if (this.listener !== client) return;
      this.listener = undefined;
      client.end().catch(() => {});
      if (this.closing) return;
      this.logger.error({ err }, 'realtime LISTEN connection lost; reconnecting');
      for (const l of this.lostListeners) l();
      setTimeout(() => void this.listen().catch((e) => lost(e)), RECONNECT_DELAY_MS).unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.listener = client;
  }

  async close(): Promise<void> {
    this.closing = true;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => {});
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
      batch.actions = batch.actions.flatMap((a): RoomAction[] => {
        if (a.k !== 'chat') return [a];
        const data = byId.get(a.id);
        return data ? [{ k: 'send', m: { event: 'chat.message', data } }] : [];
      });
    }
    for (const listener of this.listeners) listener(batch);
  }
}

function countEvents(actions: RoomAction[]): void {
  for (const action of actions) if (action.k === 'send') metrics.roomEvent(action.m.event);
}

export function chatData(row: { id: string; sender_id: string; text: string; created_at: Date }): ChatMessageData {
  return { id: row.id, sender_id: row.sender_id, text: row.text, timestamp: row.created_at.toISOString() };
}

/** The NOTIFY payload; a chat message that would make it too large travels by reference. */
function encode(batch: RoomBatch): string {
  let payload = JSON.stringify(batch);
  if (Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES) return payload;
  const actions: RoomAction[] = batch.actions.map((a) => (a.k === 'send' && a.m.event === 'chat.message' ? { k: 'chat', id: a.m.data.id } : a));
  payload = JSON.stringify({ ...batch, actions });
  if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) throw new Error(`room batch too large for NOTIFY (${payload.length} characters)`);
  return payload;
}
