import type { WebSocket } from 'ws';
import type { RoomBatch } from './pg-bus.ts';
import type { SocketIdentity } from './upgrade-auth.ts';

// This instance's sockets, by room. Every batch a room produces (on any instance) arrives here once, in the room's
// order, and is serialised once for all local members of the room.

/** A socket stops receiving when this much is still unsent: a client that cannot keep up is dropped. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

type Step =
  | { send: string }
  | { closeParticipant: string; code: number; reason: string }
  | { closeAll: number; reason: string }
  | { closeConnections: ReadonlySet<string>; code: number; reason: string };
interface Prepared {
  seq: number;
  steps: Step[];
}

export class Member {
  readonly ws: WebSocket;
  readonly id: SocketIdentity & { connectionId: string };
  /** Answered the last ping (the gateway's sweep pings every socket), and the sweep's tick it is pinged at. */
  alive = true;
  pingSlot = 0;
  /**
   * The batch number the room's state was sent as of (its snapshot, or the events a resuming client missed); undefined
   * until it is sent, and again while a resume reads it (batches wait meanwhile).
   */
  private sentSeq: number | undefined;
  /** Batches that arrived while the room's state was being read; allocated only then. */
  private waiting: Prepared[] | undefined;

  constructor(ws: WebSocket, id: SocketIdentity & { connectionId: string }) {
    this.ws = ws;
    this.id = id;
  }

  /**
   * Sends the room as of batch `seq` (a snapshot, or the events a resuming client missed, in order), then whatever the
   * room produced after it.
   */
  start(seq: number, texts: string[]): void {
    for (const text of texts) this.send(text);
    this.sentSeq = seq;
    const waiting = this.waiting ?? [];
    this.waiting = undefined;
    for (const batch of waiting) this.apply(batch);
  }

  /** The room is read again for this socket (a resume): batches wait for the next start(). */
  hold(): void {
    this.sentSeq = undefined;
  }

  receive(batch: Prepared): void {
    if (this.sentSeq === undefined) (this.waiting ??= []).push(batch);
    else this.apply(batch);
  }

  send(text: string): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    if (this.ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.ws.terminate();
      return;
    }
    this.ws.send(text);
  }

  private apply(batch: Prepared): void {
    // The events of a batch up to `sentSeq` were in what start() sent; its closings are done all the same (a resume
    // reads the room after a removal whose batch may still be waiting here).
    const sent = batch.seq <= (this.sentSeq ?? 0);
    for (const step of batch.steps) {
      if ('send' in step) {
        if (!sent) this.send(step.send);
      } else if ('closeAll' in step) this.ws.close(step.closeAll, step.reason);
      else if ('closeConnections' in step) {
        if (step.closeConnections.has(this.id.connectionId)) this.ws.close(step.code, step.reason);
      }
      else if (step.closeParticipant === this.id.participantId) this.ws.close(step.code, step.reason);
    }
  }
}

export class RoomHub {
  private readonly rooms = new Map<string, Set<Member>>();

  add(member: Member): void {
    let members = this.rooms.get(member.id.roomId);
    if (!members) this.rooms.set(member.id.roomId, (members = new Set()));
    members.add(member);
  }

  remove(member: Member): void {
    const members = this.rooms.get(member.id.roomId);
    members?.delete(member);
    if (members?.size === 0) this.rooms.delete(member.id.roomId);
  }

  all(): Member[] {
    return [...this.rooms.values()].flatMap((members) => [...members]);
  }

  get size(): number {
    let n = 0;
    for (const members of this.rooms.values()) n += members.size;
    return n;
  }

  deliver(batch: RoomBatch): void {
    const members = this.rooms.get(batch.roomId);
    if (!members) return;
    const prepared: Prepared = {
      seq: batch.seq,
      steps: batch.actions.map((a): Step => {
        if (a.k === 'send') return { send: JSON.stringify(a.m) };
        if (a.k === 'close') return { closeParticipant: a.p, code: a.code, reason: a.reason };
        if (a.k === 'end') return { closeAll: a.code, reason: a.reason };
        if (a.k === 'drop') return { closeConnections: new Set(a.c), code: a.code, reason: a.reason };
        throw new Error('chat references are resolved by the bus');
      }),
    };
    for (const member of [...members]) member.receive(prepared);
  }
}
