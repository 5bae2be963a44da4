// The empty-room timer (docs/decisions.md §6): one workflow per room. While nobody is present it waits the tenant's
// empty_room_timeout_minutes and then ends the room; a connect (a `presence` signal saying present) cancels the wait.
// The API signals it on every change between "somebody present" and "nobody present" (src/temporal/empty-room-timer.ts).
import { condition, continueAsNew, proxyActivities, setHandler } from '@temporalio/workflow';
import type { RoomActivities } from '../src/activities/rooms.ts';
import { databaseStep, emptyRoomStateQuery, presenceSignal, roomClosedSignal, type EmptyRoomInput, type PresenceSignal } from './shared.ts';

// Database steps (docs/decisions.md §15).
const options = databaseStep();
const { emptyRoomTimeoutMinutes } = proxyActivities<RoomActivities>({ ...options, summary: "read the tenant's empty_room_timeout_minutes" });
const { endEmptyRoom } = proxyActivities<RoomActivities>({ ...options, summary: 'end the room if it is still empty' });

// Keeps the history small for rooms that live long and see many comings and goings. The continued run loses the
// staticSummary its start gave (continueAsNew has no such option in SDK 1.24): docs/operations.md says so (docs/decisions.md §13).
const SIGNALS_BEFORE_CONTINUE_AS_NEW = 500;

export async function emptyRoomWorkflow(input: EmptyRoomInput): Promise<'ended' | 'closed' | 'gone'> {
  let state: PresenceSignal = input.state ?? { present: false, seq: -1 };
  let closed = false;
  let signals = 0;
  let timing = false;
  setHandler(emptyRoomStateQuery, () => ({ ...state, timing }));
  setHandler(presenceSignal, (signal) => {
    signals += 1;
    if (signal.seq > state.seq) state = signal;
  });
  setHandler(roomClosedSignal, () => {
    closed = true;
  });

  for (;;) {
    if (closed) return 'closed';
    if (signals >= SIGNALS_BEFORE_CONTINUE_AS_NEW) {
      await continueAsNew<typeof emptyRoomWorkflow>({ tenantId: input.tenantId, roomId: input.roomId, state });
    }
    if (state.present) {
      await condition(() => !state.present || closed || signals >= SIGNALS_BEFORE_CONTINUE_AS_NEW);
      continue;
    }
    // Read each time the room becomes empty, so a changed tenant setting applies to the next wait.
    const minutes = await emptyRoomTimeoutMinutes(input.tenantId);
    if (minutes === null) return 'gone';
    const seqAtStart = state.seq;
    timing = true;
    const until = new Date(Date.now() + minutes * 60_000).toISOString();
    const interrupted = await condition(() => state.seq !== seqAtStart || closed, `${minutes} minutes`, {
      summary: `end the room at ${until} if still empty (${minutes} min)`,
    });
    timing = false;
    if (interrupted) continue;
    // The activity checks the database too: a lost signal must not end a room people are in.
    const outcome = await endEmptyRoom(input.tenantId, input.roomId);
    if (outcome !== 'occupied') return outcome;
  }
}
