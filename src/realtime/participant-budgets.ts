// The WebSocket message rate counts the participant, not the socket (docs/decisions.md §16): all of a participant's
// sockets on this instance draw from one token bucket, so a second tab or a second socket does not double its rate.
// Counted in this instance's memory, like the upgrade limit: a participant whose sockets are spread over k instances
// has k budgets (k is at most WS_MAX_SOCKETS_PER_PARTICIPANT, which counts sockets on all instances together).

export interface FloodRate {
  /** Client messages allowed per second on average... */
  perSecond: number;
  /** ...and in a burst. */
  burst: number;
}

/** One participant's budget: a token bucket refilled at `perSecond`, and how many of its sockets here use it. */
export interface Budget {
  tokens: number;
  at: number;
  sockets: number;
  readonly participantId: string;
}

export class ParticipantBudgets {
  private readonly rate: FloodRate;
  private readonly budgets = new Map<string, Budget>();

  constructor(rate: FloodRate) {
    this.rate = rate;
  }

  /** A socket of the participant opened here: it shares the participant's budget (a full one if it has none yet). */
  attach(participantId: string): Budget {
    let budget = this.budgets.get(participantId);
    if (!budget) this.budgets.set(participantId, (budget = { tokens: this.rate.burst, at: Date.now(), sockets: 0, participantId }));
    budget.sockets += 1;
    return budget;
  }

  /** The socket closed. The budget outlives its last socket until it has refilled (prune): reconnecting buys nothing. */
  detach(budget: Budget): void {
    budget.sockets -= 1;
    if (budget.sockets === 0 && this.refilled(budget, Date.now())) this.budgets.delete(budget.participantId);
  }

  /** Takes one message from the budget; false when it is spent (the caller closes the socket 1008). */
  take(budget: Budget): boolean {
    const now = Date.now();
    budget.tokens = Math.min(this.rate.burst, budget.tokens + ((now - budget.at) / 1000) * this.rate.perSecond);
    budget.at = now;
    if (budget.tokens < 1) return false;
    budget.tokens -= 1;
    return true;
  }

  /** Forgets the budgets of participants with no socket here that have refilled since (called every few seconds). */
  prune(): void {
    const now = Date.now();
    for (const budget of this.budgets.values()) if (budget.sockets === 0 && this.refilled(budget, now)) this.budgets.delete(budget.participantId);
  }

  private refilled(budget: Budget, now: number): boolean {
    return budget.tokens + ((now - budget.at) / 1000) * this.rate.perSecond >= this.rate.burst;
  }
}
