// Whether a LISTEN connection still delivers. A connection can die without a word: a network partition, a failover
// that leaves the old primary's socket half-open, a backend that hangs. Then there is no error and no 'end', only
// silence, and an instance whose feed is silent sends its sockets nothing, for as long as it runs. So the room bus
// (pg-bus.ts) notifies itself every few seconds on a channel of its own, through its pool: a notification the pool has
// sent and the listener has not received within STALLED_AFTER_MS (10 s) means the listener is dead. A notification the pool
// could not send says nothing about the listener (the database is unreachable, and the listener hears of that itself)
// and is not counted.

export interface ListenCheckOptions {
  /** Sends `token` to the listener's own check channel (pg_notify through the pool); rejects when it cannot. */
  send(token: string): Promise<void>;
  /** Called once, when a sent token has not come back in time. */
  stalled(): void;
}

const EVERY_MS = 5_000;
const STALLED_AFTER_MS = 10_000;

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
    this.timer = setInterval(() => void this.tick(), EVERY_MS);
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
      if (pending.sentAt !== undefined && Date.now() - pending.sentAt > STALLED_AFTER_MS) {
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
