// The layer rule of eslint.config.js (docs/architecture.md habit 16), run through ESLint's API against the real config
// on small texts laid over real files, so a change of the config that stops refusing an upward import or a circle
// fails here. Each text stands in for the content of an existing file (the zones are drawn over real paths), with one
// import added. Every zone refuses one example, named by the message it answers with.
import { ESLint } from 'eslint';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
/**
 * The real config, with only the import rules run and so without type information: building the TypeScript program
 * for the type-aware rules took most of this file's time, and no import rule reads types.
 */
const IMPORT_RULES = /^(?:import-x\/|no-restricted-syntax$|no-restricted-imports$|@typescript-eslint\/no-restricted-imports$)/;
const eslint = new ESLint({
  cwd: root,
  ruleFilter: ({ ruleId }) => IMPORT_RULES.test(ruleId),
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
});

interface Refusal {
  rule: string;
  message: string;
}

/** The import rules `text` breaks when it is the content of `file` (a path from the project root). */
async function importRulesBroken(file: string, text: string): Promise<Refusal[]> {
  const [result] = await eslint.lintText(text, { filePath: join(root, file) });
  return result.messages
    .map((m) => ({ rule: m.ruleId ?? m.message, message: m.message }))
    .filter(({ rule }) => !rule.startsWith('@typescript-eslint/') || rule === '@typescript-eslint/no-restricted-imports');
}

const RESTRICTED = 'import-x/no-restricted-paths';

/** One refused import per zone: [zone, file, text, the rule, a word of its message]. */
const REFUSED: Array<[string, string, string, string, string]> = [
  [
    'production code → development code',
    'src/providers/audio.ts',
    "import { wavSize } from '../../dev/media-server/wav.ts';\nexport const size = wavSize;\n",
    RESTRICTED,
    'development-only',
  ],
  [
    'production code → scripts/, through a computed import()',
    'src/main.ts',
    "const launcher = '../scripts/stack/postgres.ts';\nexport const load = () => import(launcher);\n",
    'no-restricted-syntax',
    'computed path',
  ],
  [
    'assembly → entry',
    'src/services/container.ts',
    "import type { runWorker } from '../worker.ts';\nexport type W = typeof runWorker;\n",
    RESTRICTED,
    'assembly:',
  ],
  [
    'adapters → assembly',
    'src/realtime/realtime.ports.ts',
    "import type { AppDeps } from '../app.ts';\nexport type D = AppDeps;\n",
    RESTRICTED,
    'adapters:',
  ],
  [
    'modules → adapters',
    'src/modules/rooms/room.ports.ts',
    "import type { PgRoomBus } from '../../realtime/pg-bus.ts';\nexport type B = PgRoomBus;\n",
    RESTRICTED,
    'modules:',
  ],
  [
    'shared → adapters (the HTTP layer and the credential resolver)',
    'src/http/router.ts',
    "import type { CredentialResolver } from '../credentials/credential-resolver.ts';\nexport type C = CredentialResolver;\n",
    RESTRICTED,
    'shared:',
  ],
  [
    'shared → modules',
    'src/events/domain-events.ts',
    "import type { Room } from '../modules/rooms/room.entity.ts';\nexport type R = Room;\n",
    RESTRICTED,
    'shared:',
  ],
  [
    'ground floor → shared (the settings and the HTTP layer)',
    'src/config.ts',
    "import { clientAddress } from './http/client-address.ts';\nexport const address = clientAddress;\n",
    RESTRICTED,
    'ground floor:',
  ],
  [
    'ground floor → adapters',
    'src/db/sql.ts',
    "import type { PgRoomBus } from '../realtime/pg-bus.ts';\nexport type B = PgRoomBus;\n",
    RESTRICTED,
    'ground floor:',
  ],
  [
    'ground floor → workflow code (workflows/shared.ts and a workflow)',
    'workflows/shared.ts',
    "import type * as PostMeeting from './post-meeting.ts';\nexport type P = typeof PostMeeting;\n",
    RESTRICTED,
    'ground floor:',
  ],
  [
    'the Temporal adapters, from anything but the assembly',
    'src/realtime/realtime.ports.ts',
    "import type { TemporalClient } from '../temporal/client.ts';\nexport type T = TemporalClient;\n",
    RESTRICTED,
    'Only the assembly',
  ],
  [
    'rooms → recordings',
    'src/modules/rooms/room.ports.ts',
    "import type { Recording } from '../recordings/recording.entity.ts';\nexport type R = Recording;\n",
    RESTRICTED,
    'A recording belongs to a room',
  ],
  [
    'participants → auth',
    'src/modules/participants/participant.ports.ts',
    "import type { AuthService } from '../auth/auth.service.ts';\nexport type A = AuthService;\n",
    RESTRICTED,
    'Auth issues credentials',
  ],
  [
    'workflow code → an activity, as a value',
    'workflows/empty-room.ts',
    "import { createRoomActivities } from '../src/activities/rooms.ts';\nexport const create = createRoomActivities;\n",
    '@typescript-eslint/no-restricted-imports',
    'import type',
  ],
];

test.each(REFUSED)('refused: %s', async (_zone, file, text, rule, word) => {
  const refusals = await importRulesBroken(file, text);
  expect(refusals.map((r) => r.rule)).toEqual([rule]);
  expect(refusals[0].message).toContain(word);
}, 60_000);

test('a module may not import the Temporal adapters, not even a type (two zones say so)', async () => {
  const refusals = await importRulesBroken(
    'src/modules/recordings/recording.ports.ts',
    "import type { TemporalRecordingOrchestrator } from '../../temporal/recording-orchestrator.ts';\nexport type T = TemporalRecordingOrchestrator;\n",
  );
  expect(refusals.map((r) => r.rule)).toEqual([RESTRICTED, RESTRICTED]);
}, 60_000);

test('an import circle is refused', async () => {
  // room-access.ts is imported by room.service.ts; importing the service back closes a circle.
  expect(
    (await importRulesBroken('src/modules/rooms/room-access.ts', "import { RoomService } from './room.service.ts';\nexport const S = RoomService;\n")).map(
      (r) => r.rule,
    ),
  ).toEqual(['import-x/no-cycle']);
}, 60_000);

test('imports that go down are accepted', async () => {
  for (const [file, text] of [
    ['src/modules/rooms/room.ports.ts', "import type { Principal } from '../../domain/principal.ts';\nexport type P = Principal;\n"],
    ['src/http/router.ts', "import type { Principal } from '../domain/principal.ts';\nexport type P = Principal;\n"],
    ['src/config.ts', "import { compileTrustProxy } from './security/trust-proxy.ts';\nexport const trust = compileTrustProxy;\n"],
    ['src/handover/handover.ts', "import { searchAttributesFor } from '../../workflows/shared.ts';\nexport const s = searchAttributesFor;\n"],
    ['src/tracing/tracing.ts', "import { loadConfig } from '../config.ts';\nexport const load = () => import('../logger.ts').then(() => loadConfig);\n"],
  ]) {
    expect(await importRulesBroken(file, text)).toEqual([]);
  }
}, 60_000);
