import { v7 as uuidv7 } from 'uuid';
import { CloseCode, type ErrorData, type ServerMessage } from '../../generated/asyncapi.ts';
import type { Sql } from '../db/sql.ts';
import { storeChats } from './chat-store.ts';
import { Departures } from './departures.ts';
import type { EmptyRoomTimer } from './realtime.ports.ts';
import { errorMessage, parseClientMessage, type ParsedClientMessage } from './messages.ts';
import type { History, PgRoomBus, RoomAction, RoomEventDraft } from './pg-bus.ts';
import * as presence from './presence.ts';
import type { SocketIdentity } from './upgrade-auth.ts';

// What a member of a room may do over its socket, and what the room hears of it (docs/decisions.md §6, §11): the rules live
// here, the SQL behind named functions (presence.ts, chat-store.ts), each change in the room's turn (PgRoomBus.append).
// The gateway only moves text between sockets and these commands.

/** One open socket of a participant. */
export type Occupant = SocketIdentity & { connectionId: string };

export type JoinResult =
  /** What the socket is sent first, in order (a snapshot, or what a resuming client missed), as of batch `seq`. */
  | { ok: true; seq: number; texts: string[] }
  /** Ended or removed between the upgrade checks and now: the socket is closed with this code. */
  | { ok: false; code: number; reason: string };

/** A resume answered (docs/decisions.md §11): what to send, as of batch `seq` (nothing when the sender no longer counts). */
export interface Resumed {
  seq: number;
  texts: string[];
}

/** What became of a batch of chat: stored and announced, refused (`chat_enabled` false), or its sender no longer counts. */
type ChatOutcome = 'sent' | 'disabled' | 'not-member';

/** Estimated NOTIFY bytes per chat transaction (text plus ~170 bytes of envelope each): under PostgreSQL's 8000. */
const CHAT_BATCH_BYTES = 7000;
const CHAT_ENVELOPE_BYTES = 170;

const send = (m: RoomEventDraft): RoomAction => ({ k: 'send', m });
const refusal = (code: ErrorData['code'], message: string) => errorMessage({ code, message });

export class RoomCommands {
  private readonly bus: PgRoomBus;
  private readonly departures: Departures;
  private readonly timer: EmptyRoomTimer;
  /** Identifies this process's rows in realtime_connections. */
  private readonly instanceId: string;
  /** Live sockets a participant may hold at once, on all instances (WS_MAX_SOCKETS_PER_PARTICIPANT). */
  private readonly maxSocketsPerParticipant: number;
  /** After how long without a heartbeat a socket's row belongs to a dead instance (WS_PRESENCE_STALE_AFTER). */
  private readonly staleAfterSeconds: number;

  constructor(deps: { bus: PgRoomBus; timer: EmptyRoomTimer; instanceId: string; maxSocketsPerParticipant: number; staleAfterSeconds: number }) {
    this.bus = deps.bus;
    this.departures = new Departures(deps);
    this.timer = deps.timer;
    this.instanceId = deps.instanceId;
    this.maxSocketsPerParticipant = deps.maxSocketsPerParticipant;
    this.staleAfterSeconds = deps.staleAfterSeconds;
  }

  /**
   * Records the socket; the first socket of a participant announces participant.joined. The socket is sent the room's
   * snapshot, or with `resumeFrom` the events after it up to this join's own, read in the same turn (docs/decisions.md
   * §11): what it is sent and what it receives live meet at the join's batch, with no gap and no repeat.
   */
  async join(o: Occupant, resumeFrom?: number): Promise<JoinResult> {
    const { seq, eventSeq, events, result } = await this.bus.append(o.roomId, async (sql, _seq, lastEvent) => {
      const outcome = await presence.join(sql, {
        id: o.connectionId,
        tenantId: o.tenantId,
        roomId: o.roomId,
        participantId: o.participantId,
        instanceId: this.instanceId,
        maxSockets: this.maxSocketsPerParticipant,
        staleAfterSeconds: this.staleAfterSeconds,
      });
      const actions: RoomAction[] = outcome.ok && outcome.becamePresent ? [send({ event: 'participant.joined', data: outcome.me })] : [];
      // Over the cap, the oldest sockets are closed wherever they are: a new one replaces the oldest (docs/decisions.md §11).
      if (outcome.ok && outcome.displaced.length > 0) {
        actions.push({ k: 'drop', c: outcome.displaced, code: CloseCode.REPLACED_BY_NEWER_SOCKET, reason: 'Replaced by a newer connection' });
      }
      const history = outcome.ok && resumeFrom !== undefined ? await this.bus.history(sql, o.roomId, resumeFrom, lastEvent) : undefined;
      return { actions, result: { outcome, history } };
    });
    const { outcome, history } = result;
    if (!outcome.ok) {
      const code = outcome.reason === 'room-ended' ? CloseCode.ROOM_ENDED : CloseCode.PARTICIPANT_REMOVED;
      return { ok: false, code, reason: outcome.reason };
    }
    // The room was empty until now: the timer stops waiting. Not awaited: a socket must not wait on Temporal (the
    // signal carries seq, so a late one is ignored); the timer owns its calls in flight.
    if (outcome.becamePresent && outcome.state.participants.length === 1) void this.timer.presenceChanged(o.tenantId, o.roomId, true, seq);
    const snapshot = { event: 'room.snapshot', seq: eventSeq, data: outcome.state } satisfies ServerMessage;
    if (resumeFrom === undefined || !history) return { ok: true, seq, texts: [JSON.stringify(snapshot)] };
    // The join's own events (participant.joined) follow what was missed before it.
    return { ok: true, seq, texts: resumed(resumeFrom, history, events.map((m) => JSON.stringify(m)), snapshot) };
  }

  /**
   * A `resume` as the first message of a socket that already has its snapshot (docs/decisions.md §11): the events after
   * `resumeFrom`, read in the room's turn; the caller holds the socket's live batches meanwhile and sends them after.
   * Nothing when the sender no longer counts: its closing is on its way.
   */
  async resume(o: Occupant, resumeFrom: number): Promise<Resumed> {
    const { seq, eventSeq, result } = await this.bus.append(o.roomId, async (sql, _seq, lastEvent) => {
      if (!(await presence.standing(sql, o.connectionId)).member) return { actions: [], result: undefined };
      const history = await this.bus.history(sql, o.roomId, resumeFrom, lastEvent);
      const state = history.ok ? undefined : await presence.roomState(sql, o.roomId, this.staleAfterSeconds);
      return { actions: [], result: { history, state } };
    });
    if (!result) return { seq, texts: [] };
    const snapshot = result.state && ({ event: 'room.snapshot', seq: eventSeq, data: result.state } satisfies ServerMessage);
    return { seq, texts: resumed(resumeFrom, result.history, [], snapshot) };
  }

  /** The socket closed; the participant's last socket makes it leave (and may leave the room empty). */
  async leave(o: Occupant): Promise<void> {
    // Removed, ended, deleted or reaped: whoever deleted the row announced the departure. Checking first spares the
    // room a transaction per socket when a whole room closes at once.
    if (!(await presence.connectionExists(this.bus.pool, o.connectionId))) return;
    await this.departures.append(o.roomId, async (sql) => {
      const actions = await presence.leave(sql, o.connectionId, o.participantId, this.staleAfterSeconds);
      return { actions, departed: actions.length > 0 };
    });
  }

  /**
   * One socket's messages, in the order it sent them. Consecutive chat messages are stored and announced in one
   * transaction (group commit): a fast sender costs the room one transaction per batch instead of one per message.
   * `reply` answers this socket only (pong, errors). False when the room no longer counts the sender (removed,
   * replaced, displaced, the room ended or deleted): its remaining messages are not handled.
   */
  async handle(o: Occupant, texts: Array<string | null>, reply: (message: ServerMessage) => void): Promise<boolean> {
    let chats: string[] = [];
    let bytes = 0;
    const flush = async (): Promise<boolean> => {
      if (chats.length === 0) return true;
      const batch = chats;
      chats = [];
      bytes = 0;
      const outcome = await this.chat(o, batch);
      if (outcome === 'disabled') for (const _ of batch) reply(refusal('CHAT_DISABLED', 'Chat is disabled in this room'));
      return outcome !== 'not-member';
    };
    for (const text of texts) {
      const parsed: ParsedClientMessage =
        text === null ? { ok: false, error: { code: 'INVALID_MESSAGE', message: 'Messages are UTF-8 text frames' } } : parseClientMessage(text);
      if (parsed.ok && parsed.message.event === 'chat.send' && o.role !== 'viewer') {
        const chat = parsed.message.data.text;
        // A batch's NOTIFY payload stays under PostgreSQL's limit; a single long message travels by reference (pg-bus.ts).
        const size = Buffer.byteLength(chat) + CHAT_ENVELOPE_BYTES;
        if (bytes + size > CHAT_BATCH_BYTES && !(await flush())) return false;
        chats.push(chat);
        bytes += size;
        continue;
      }
      if (!(await flush()) || !(await this.command(o, parsed, reply))) return false;
    }
    return flush();
  }

  /** Keeps this instance's sockets counted as present, cleans up after instances that died and trims old events. */
  async heartbeat(): Promise<void> {
    await presence.heartbeat(this.bus.pool, this.instanceId);
    await this.bus.trim();
    for (const roomId of await presence.roomsWithStaleConnections(this.bus.pool, this.staleAfterSeconds)) {
      await this.departures.append(roomId, async (sql) => {
        const actions = await presence.reapRoom(sql, roomId, this.staleAfterSeconds);
        return { actions, departed: actions.length > 0 };
      });
    }
  }

  /** Chat needs `chat_enabled` (docs/decisions.md §11) and a sender the room still counts. */
  private async chat(o: Occupant, texts: string[]): Promise<ChatOutcome> {
    const messages = texts.map((text) => ({ id: uuidv7(), text }));
    const done = await this.asMember(o, async (sql, chatEnabled) => {
      if (!chatEnabled) return { actions: [], result: 'disabled' as const };
      const stored = await storeChats(sql, o, messages);
      return { actions: stored.map((data) => send({ event: 'chat.message', data })), result: 'sent' as const };
    });
    return done?.result ?? 'not-member';
  }

  /** Answers one message that is not chat; false when the room no longer counts the sender. */
  private async command(o: Occupant, parsed: ParsedClientMessage, reply: (message: ServerMessage) => void): Promise<boolean> {
    // Answers to the sender alone touch nothing in the room: they need no standing.
    const answer = (m: ServerMessage): true => {
      reply(m);
      return true;
    };
    if (!parsed.ok) return answer(errorMessage(parsed.error));
    const message = parsed.message;
    switch (message.event) {
      case 'ping':
        return answer({ event: 'pong', data: {} });
      case 'resume':
        // The connection answers a first-message resume itself (connection.ts); any other is refused.
        return answer(refusal('INVALID_MESSAGE', 'resume is accepted only as the first message of a connection opened without resume_from'));
      case 'chat.send':
        // Viewers receive events but cannot chat (docs/decisions.md §6); everyone else's chat is batched in handle().
        return answer(refusal('FORBIDDEN', 'Viewers cannot chat'));
      case 'hand.raise': {
        if (o.role === 'viewer') return answer(refusal('FORBIDDEN', 'Viewers cannot raise a hand'));
        const raised = send({ event: 'hand.raised', data: { participant_id: o.participantId } });
        const done = await this.asMember(o, async (sql) => ({ actions: (await presence.raiseHand(sql, o.roomId, o.participantId)) ? [raised] : [], result: true }));
        return done !== undefined;
      }
      case 'hand.lower': {
        const lowered = send({ event: 'hand.lowered', data: { participant_id: o.participantId } });
        const done = await this.asMember(o, async (sql) => ({ actions: (await presence.lowerHand(sql, o.participantId)) ? [lowered] : [], result: true }));
        return done !== undefined;
      }
    }
  }

  /**
   * Runs a change a member makes in the room's turn, only while the room still counts the sender (presence.standing):
   * the check and the write commit together, so from the moment a removal, a replacement, a room's end or deletion or
   * a tenant's deletion has answered, nothing its sockets send reaches the room or the database, on any instance and
   * whether or not the socket has been closed yet (docs/decisions.md §16). Undefined when the sender no longer counts.
   */
  private async asMember<T>(
    o: Occupant,
    change: (sql: Sql, chatEnabled: boolean) => Promise<{ actions: RoomAction[]; result: T }>,
  ): Promise<{ result: T } | undefined> {
    const { result } = await this.bus.append(o.roomId, async (sql): Promise<{ actions: RoomAction[]; result: { result: T } | undefined }> => {
      const where = await presence.standing(sql, o.connectionId);
      if (!where.member) return { actions: [], result: undefined };
      const done = await change(sql, where.chatEnabled);
      return { actions: done.actions, result: { result: done.result } };
    });
    return result;
  }
}

/** The missed events, then the batch's own; or, when they are not kept, resync_required and a fresh snapshot. */
function resumed(resumeFrom: number, history: History, own: string[], snapshot: ServerMessage | undefined): string[] {
  if (history.ok) return [...history.messages, ...own];
  const resync: ServerMessage = { event: 'resync_required', data: { resume_from: resumeFrom, reason: history.reason } };
  return [JSON.stringify(resync), JSON.stringify(snapshot)];
}
