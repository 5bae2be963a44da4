// A fault for the fault test of docs/decisions.md §15 (test/integration/faults/handover-crash.test.ts), never part of
// the product: loaded before the API with `node --import ./dev/faults/exit-after-handover-commit.ts src/main.ts api`,
// it makes the process exit with code 86 right after a transaction that recorded hand-overs commits, before its relay
// starts them. The relay of another process (or of this one restarted) must still start what was recorded.
//
// It listens on the channel `Handovers.committed()` publishes (src/handover/handover.ts); the name is repeated here
// rather than imported, so loading this file loads nothing of the product before src/main.ts does.
import { subscribe } from 'node:diagnostics_channel';

const EXIT_CODE = 86; // what the test expects of the doomed process

subscribe('convene:handover:committed', () => process.exit(EXIT_CODE));
