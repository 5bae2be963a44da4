// Whether a LISTEN connection still delivers. A connection can die without a word: a network partition, a failover
// that leaves the old primary's socket half-open, a backend that hangs. Then there is no error and no 'end', only
// silence, and an instance whose feed is silent sends its sockets nothing, for as long as it runs. So the room bus
// (pg-bus.ts) notifies itself every `everyMs` (WS_LISTEN_CHECK_INTERVAL, 5 s by default) on a channel of its own, through
// its pool: a notification the pool has sent and the listener has not received within two intervals (10 s) means the
// listener is dead. A notification the pool could not send says nothing about the listener (the database is
// unreachable, and the listener hears of that itself) and is not counted.

export interface ListenCheckOptions {
  /** Sends `token` to the listener's own check channel (pg_notify through the pool); rejects when it cannot. */
  send(token: string): Promise<void>;
  /** Called once, when a sent token has not come back in time. */
  stalled(): void;
  /** How often a token is sent, and a late one looked for. */
  everyMs: number;
}

/**
 * A token's deadline, in intervals. Derived rather than set, so one setting moves both and they cannot be set the wrong
 * way round (a token is only looked at on ticks: any deadline under one interval acts as one). A live connection
 * returns a notification within milliseconds, so two intervals leave ample slack for a busy event loop or database.
 * A token counts as sent once its send resolved, a little after the tick that sent it, so the second tick after finds
 * it about two intervals old, late or not by the timer's drift, and the third surely late: a silent connection is
 * noticed two to four intervals after it stopped (measured: 20 s with 5 s, 2.6 s with 1 s).
 */
const DEADLINE_INTERVALS = 2;

export class ListenCheck {
  private readonly o: ListenCheckOptions;
  private timer: NodeJS.Timeout | undefined;
  /** The token on its way; `sentAt` once the pool has sent it (it may be received before the send resolves). */
  private pending: { token: string; sentAt?: number } | undefined;
  private count = 0;

  constructor(options: ListenCheckOptions) {
    this.o = options;
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.o.everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** A token the listener received on the check channel. */
  received(token: string): void {
    if (this.pending?.token === token) this.pending = undefined;
  }

  private async tick(): Promise<void> {
    const pending = this.pending;
    if (pending) {
      if (pending.sentAt !== undefined && Date.now() - pending.sentAt > DEADLINE_INTERVALS * this.o.everyMs) {
        this.stop();
        this.o.stalled();
      }
      return; // still sending, or still on its way
    }
    const next: { token: string; sentAt?: number } = { token: String(++this.count) };
    this.pending = next;
    try {
      await this.o.send(next.token);
      next.sentAt = Date.now();
    } catch {
      if (this.pending === next) this.pending = undefined;
    }
  }
}
