// The layer rule of eslint.config.js (docs/architecture.md habit 16), run on small texts laid over real files, so a
// change of the config that stops refusing an upward import or a circle fails here. Each text stands in for the
// content of an existing file (the type-aware parser needs a file of the tsconfig), with one import added.
import { ESLint } from 'eslint';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const eslint = new ESLint({ cwd: root });

/** The import rules `text` breaks when it is the content of `file` (a path from the project root). */
async function importRulesBroken(file: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: join(root, file) });
  return result.messages.map((m) => m.ruleId ?? m.message).filter((rule) => !rule.startsWith('@typescript-eslint/'));
}

const RESTRICTED = 'import-x/no-restricted-paths';

test('a module may not import the Temporal adapters, not even a type', async () => {
  expect(
    await importRulesBroken(
      'src/modules/recordings/recording.ports.ts',
      "import type { TemporalRecordingOrchestrator } from '../../temporal/recording-orchestrator.ts';\nexport type T = TemporalRecordingOrchestrator;\n",
    ),
  ).toContain(RESTRICTED);
}, 60_000);

test('production code may not import the development media server', async () => {
  expect(
    await importRulesBroken('src/providers/audio.ts', "import { wavSize } from '../../dev/media-server/wav.ts';\nexport const size = wavSize;\n"),
  ).toEqual([RESTRICTED]);
}, 60_000);

test('rooms may not import recordings, nor participants auth', async () => {
  expect(
    await importRulesBroken('src/modules/rooms/room.ports.ts', "import type { Recording } from '../recordings/recording.entity.ts';\nexport type R = Recording;\n"),
  ).toEqual([RESTRICTED]);
  expect(
    await importRulesBroken('src/modules/participants/participant.ports.ts', "import type { AuthService } from '../auth/auth.service.ts';\nexport type A = AuthService;\n"),
  ).toEqual([RESTRICTED]);
}, 60_000);

test('the ground floor may not import what stands on it', async () => {
  expect(
    await importRulesBroken('src/db/sql.ts', "import type { PgRoomBus } from '../realtime/pg-bus.ts';\nexport type B = PgRoomBus;\n"),
  ).toEqual([RESTRICTED]);
}, 60_000);

test('an import circle is refused', async () => {
  // room-access.ts is imported by room.service.ts; importing the service back closes a circle.
  expect(
    await importRulesBroken('src/modules/rooms/room-access.ts', "import { RoomService } from './room.service.ts';\nexport const S = RoomService;\n"),
  ).toEqual(['import-x/no-cycle']);
}, 60_000);

test('an import that goes down is accepted', async () => {
  expect(
    await importRulesBroken('src/modules/rooms/room.ports.ts', "import type { Principal } from '../../domain/principal.ts';\nexport type P = Principal;\n"),
  ).toEqual([]);
}, 60_000);
