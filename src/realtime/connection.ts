import { WebSocket, type RawData } from 'ws';
import { CloseCode } from '../../generated/asyncapi.ts';
import type { Logger } from '../logger.ts';
import { errorMessage, resumeRequest } from './messages.ts';
import type { Budget, ParticipantBudgets } from './participant-budgets.ts';
import type { RoomCommands } from './room-commands.ts';
import { Member } from './room-hub.ts';
import type { SocketIdentity } from './upgrade-auth.ts';

// One open socket's state as plain fields of one object, and the gateway's timers shared by all sockets:
// no closures or timers per socket. Its listeners are module functions that find the connection on the socket.

/** Client messages taken from a socket's inbox at a time, and the most it may hold before it counts as flooding. */
const MAX_BATCH = 100;
const MAX_INBOX = 1000;
/** Ticks per ping interval: each socket is pinged at one of them. */
const PING_SLOTS = 30;
/** The longest delay setTimeout accepts (~24.8 days). */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** What the connections of one gateway share: one object, referenced by each. */
export interface ConnectionContext {
  commands: RoomCommands;
  logger: Logger;
  /** The message rate of each participant, shared by its sockets; beyond it the socket is closed 1008. */
  budgets: ParticipantBudgets;
  /** Keeps a promise for the gateway's close() to wait on. */
  track<T>(p: Promise<T>): Promise<T>;
  /** The socket closed: forget it (its departure is recorded by the connection). */
  closed(connection: Connection): void;
}

/**
 * The gateway's socket class (WebSocketServer's `WebSocket` option): `ws`'s socket with one more field, its connection,
 * declared here so it has a slot in the object (a property added to a finished socket spills into a separate array).
 */
export class ConveneSocket extends WebSocket {
  connection: Connection | undefined = undefined;
}

export class Connection extends Member {
  /** Settles once the join is recorded and the snapshot sent (never rejects); undefined after that. */
  private ready: Promise<void> | undefined;
  /** Messages waiting their turn, in the order sent; allocated while there are any. */
  private inbox: (string | null)[] | undefined;
  private draining = false;
  /** Flood limit: the participant's budget, shared with its other sockets here. */
  private readonly budget: Budget;
  private readonly ctx: ConnectionContext;
  /** The `resume_from` of the upgrade's query (docs/decisions.md §11). */
  private readonly resumeFrom: number | undefined;
  /** No message handled yet, and none was resumed from the query: a first `resume` message is answered. */
  private mayResume: boolean;

  constructor(ws: ConveneSocket, id: SocketIdentity & { connectionId: string }, ctx: ConnectionContext, resumeFrom?: number) {
    super(ws, id);
    this.ctx = ctx;
    this.resumeFrom = resumeFrom;
    this.mayResume = resumeFrom === undefined;
    this.budget = ctx.budgets.attach(id.participantId);
    ws.connection = this;
    ws.on('pong', onPong);
    ws.on('message', onMessage);
    ws.on('error', onError);
    ws.on('close', onClose);
  }

  /**
   * Records the socket in the room, then sends the snapshot, or what it missed when it resumes (or closes, when the room
   * ended meanwhile).
   */
  join(): void {
    const { commands, logger, track } = this.ctx;
    this.ready = track(
      commands
        .join(this.id, this.resumeFrom)
        .then((joined) => (joined.ok ? this.start(joined.seq, joined.texts) : this.ws.close(joined.code, joined.reason)))
        .catch((err) => {
          logger.error({ err, roomId: this.id.roomId }, 'joining the room failed');
          this.ws.close(CloseCode.INTERNAL_ERROR, 'Internal error');
        })
        .then(() => void (this.ready = undefined)),
    );
  }

  /** One client's messages are handled in the order it sent them, after its snapshot. */
  received(raw: RawData, isBinary: boolean): void {
    // Once the close frame is sent (removed, replaced, room ended, token expired, flooding), nothing the socket sends
    // is handled, also from a client that never answers it (docs/decisions.md §16): ws keeps emitting its messages
    // until the closing handshake ends or the gateway's close timeout destroys the socket.
    if (!this.isOpen()) return;
    // The inbox is bounded by the flood limit; the cap is a second fence for generous limits.
    const inbox = (this.inbox ??= []);
    if (inbox.length >= MAX_INBOX || !this.ctx.budgets.take(this.budget)) return void this.ws.close(CloseCode.POLICY_VIOLATION, 'Too many messages');
    inbox.push(isBinary ? null : raw.toString());
    if (!this.draining) {
      this.draining = true;
      void this.drain();
    }
  }

  closed(): void {
    const { commands, logger, track } = this.ctx;
    this.ctx.closed(this);
    this.ctx.budgets.detach(this.budget);
    const leave = () => commands.leave(this.id);
    void track(Promise.resolve(this.ready).then(leave).catch((err) => logger.error({ err, roomId: this.id.roomId }, 'recording a departure failed')));
  }

  private async drain(): Promise<void> {
    const { commands, logger } = this.ctx;
    await this.ready;
    const inbox = this.inbox!;
    while (inbox.length > 0) {
      // What waited while the socket began closing, or after the room stopped counting its sender, is dropped unread.
      if (!this.isOpen()) break;
      if (this.mayResume) {
        this.mayResume = false;
        const resumeFrom = resumeRequest(inbox[0]);
        if (resumeFrom !== undefined) {
          inbox.shift();
          await this.resume(resumeFrom);
          continue;
        }
      }
      const texts = inbox.splice(0, MAX_BATCH);
      const stillMember = await commands.handle(this.id, texts, (message) => this.send(JSON.stringify(message))).catch((err) => {
        logger.error({ err, roomId: this.id.roomId }, 'WebSocket message failed');
        this.send(JSON.stringify(errorMessage({ code: 'INTERNAL_ERROR', message: 'The message could not be processed' })));
        return true;
      });
      if (!stillMember) break;
    }
    // No await between the loop's last check and here: a message arriving now starts a new drain. What is left after
    // a break is dropped with the inbox.
    this.inbox = undefined;
    this.draining = false;
  }

  /**
   * A first-message resume (docs/decisions.md §11): live batches wait while the room's events after `resumeFrom` are
   * read in its turn, then follow them; those the socket was sent since its snapshot come again within them.
   */
  private async resume(resumeFrom: number): Promise<void> {
    this.hold();
    try {
      const { seq, texts } = await this.ctx.commands.resume(this.id, resumeFrom);
      this.start(seq, texts);
    } catch (err) {
      this.ctx.logger.error({ err, roomId: this.id.roomId }, 'resuming failed');
      this.ws.close(CloseCode.INTERNAL_ERROR, 'Internal error');
    }
  }

  private isOpen(): boolean {
    return this.ws.readyState === this.ws.OPEN;
  }
}

// EventEmitter calls a listener with the socket as `this`: the same four functions serve every socket.
function onPong(this: WebSocket): void {
  (this as ConveneSocket).connection!.alive = true;
}
function onMessage(this: WebSocket, raw: RawData, isBinary: boolean): void {
  (this as ConveneSocket).connection!.received(raw, isBinary);
}
function onError(this: WebSocket): void {
  this.terminate();
}
function onClose(this: WebSocket): void {
  (this as ConveneSocket).connection!.closed();
}

/**
 * The gateway's two timers for all its sockets. Ping: every interval each socket is pinged, and one that has not
 * answered the previous ping is dropped; the sockets are spread over PING_SLOTS ticks of the interval, so the pings go
 * out a slice at a time rather than all in one burst (as each socket's own timer spread them before). Expiry: a token
 * is valid only until its exp, also on an open socket: one timer waits for the earliest exp among the
 * sockets and closes those expired with 4005.
 */
export class SocketSweeps {
  private readonly members: () => Iterable<Member>;
  private readonly pinger: NodeJS.Timeout;
  private tick = 0;
  private expiry: NodeJS.Timeout | undefined;
  private nextExpiry = Infinity;

  constructor(members: () => Iterable<Member>, pingIntervalMs: number) {
    this.members = members;
    this.pinger = setInterval(() => this.ping(), pingIntervalMs / PING_SLOTS);
    this.pinger.unref();
  }

  added(member: Member): void {
    member.pingSlot = this.tick % PING_SLOTS; // first pinged a whole interval from now
    if (member.id.expiresAt < this.nextExpiry) this.armExpiry(member.id.expiresAt);
  }

  stop(): void {
    clearInterval(this.pinger);
    clearTimeout(this.expiry);
    this.nextExpiry = -Infinity; // nothing is armed again
  }

  private ping(): void {
    const slot = (this.tick = (this.tick + 1) % PING_SLOTS);
    for (const member of this.members()) {
      if (member.pingSlot !== slot) continue;
      if (!member.alive) {
        member.ws.terminate();
        continue;
      }
      member.alive = false;
      member.ws.ping();
    }
  }

  private armExpiry(at: number): void {
    clearTimeout(this.expiry);
    this.nextExpiry = at;
    this.expiry = setTimeout(() => this.expire(), Math.min(MAX_DELAY_MS, Math.max(0, at - Date.now())));
    this.expiry.unref();
  }

  private expire(): void {
    const now = Date.now();
    let next = Infinity;
    for (const member of this.members()) {
      if (member.id.expiresAt <= now) member.ws.close(CloseCode.TOKEN_EXPIRED, 'Access token expired');
      else next = Math.min(next, member.id.expiresAt);
    }
    this.expiry = undefined;
    this.nextExpiry = Infinity;
    if (next < Infinity) this.armExpiry(next);
  }
}
