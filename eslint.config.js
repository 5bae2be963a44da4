// ESLint (flat config) with typescript-eslint's type-aware parser: the rules a reviewer should never have to check by
// eye (docs/architecture.md habit 2). `npm run lint`; `npm test` runs it before tsc with --max-warnings 0.
//
// 1. Everywhere the tsconfig reaches: a promise is awaited, returned, or handed to `void` on purpose. A floating
//    promise is a rejection nobody hears (an unhandled rejection kills the process) or work that races shutdown.
// 2. workflows/**: workflow code is replayed from history, so it must be deterministic and free of I/O. It may import
//    the workflow SDK, ./shared.ts and other workflow files; anything else only with `import type` (erased before
//    the SDK bundles the code). Node built-ins and the globals that read the clock of the host, randomness, or the
//    network are refused, so a mistake fails here and not in a replay in production.
// 3. src/** and workflows/**: the layers of docs/architecture.md habit 16. No import circle (import-x/no-cycle; it
//    follows value imports, and the zones below refuse the type-only imports that would close a circle across
//    layers); production code never imports development-only or test code (nor anything through a computed import());
//    each floor of the picture imports only the floors below it (a module never imports the Temporal adapters, the
//    activities or the assembly: it declares a port in <module>.ports.ts and they implement it).
//    test/unit/layers.test.ts shows each zone refusing one bad import.
import { builtinModules } from 'node:module';
import { defineConfig } from 'eslint/config';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** Node built-ins by bare name (`fs`, `fs/promises`); `node:`-prefixed names are matched by pattern. */
const BUILTINS = builtinModules.filter((name) => !name.startsWith('_') && !name.startsWith('node:'));
const escape = (name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Development-only and test code: dev/ (the development media server, fault hooks), tests, benchmarks, scripts, examples. */
const DEV_ONLY = ['./dev', './test', './bench', './scripts', './examples'];

// The floors of docs/architecture.md habit 16, top down, exactly as its picture draws them. Each floor imports only the
// floors below it. workflows/ stands beside them: its code imports values only from the workflow SDK and ./ files (the
// workflows/** block below), activity types with `import type`; its plain-data files are on the ground floor.
const ENTRY = ['./src/main.ts', './src/worker.ts'];
const ASSEMBLY = ['./src/services', './src/app.ts'];
const ADAPTERS = ['./src/temporal', './src/activities', './src/realtime', './src/credentials', './src/handover/relay.ts'];
const MODULES = ['./src/modules'];
const SHARED = ['./src/http', './src/handover/!(relay).ts', './src/events', './src/storage', './src/upstream', './src/providers', './src/metrics'];
// Not src/db/entities.ts (the list of every entity the ORM maps) nor src/db/migrations/ (a data migration may use a
// module's code): both are read by the ORM set-up only.
const GROUND = [
  './src/domain',
  './src/security',
  './src/config.ts',
  './src/logger.ts',
  './src/tracing',
  './src/db/!(entities).ts',
  './workflows/{shared,failure-types,post-meeting-types}.ts',
];
const WORKFLOW_CODE = ['./workflows/!(shared|failure-types|post-meeting-types).ts'];

/**
 * One zone per floor: `target` may not import `from`. import-x takes a zone's `from` either as folders and files or as
 * globs, never both, so a floor above given partly by globs becomes two zones with one message.
 */
function floor(name, target, above, message) {
  const globs = above.filter((path) => /[*!{]/.test(path));
  const plain = above.filter((path) => !globs.includes(path));
  return [plain, globs].filter((from) => from.length > 0).map((from) => ({ target, from, message: `${name}: ${message}` }));
}

/** The layer rule (docs/architecture.md habit 16): each zone says which files may not import which, and why. */
const LAYERS = [
  {
    target: ['./src', './workflows'],
    from: DEV_ONLY,
    message: 'Production code never imports development-only or test code (dev/, test/, bench/, scripts/, examples/): move what both need below both.',
  },
  ...floor('assembly', ASSEMBLY, ENTRY, 'the assembly builds what the entry points run; it never imports them.'),
  ...floor('adapters', ADAPTERS, [...ASSEMBLY, ...ENTRY], 'an adapter is handed in by the assembly; it never imports the assembly or an entry point.'),
  ...floor(
    'modules',
    MODULES,
    [...ADAPTERS, ...ASSEMBLY, ...ENTRY],
    'a module declares what it needs as a port (<module>.ports.ts) and the adapter implements it; it never imports the adapter.',
  ),
  ...floor(
    'shared',
    SHARED,
    [...MODULES, ...ADAPTERS, ...ASSEMBLY, ...ENTRY],
    'what every module may use imports no module and no adapter: declare a port here and let the adapter implement it.',
  ),
  ...floor(
    'ground floor',
    GROUND,
    [...SHARED, ...MODULES, ...ADAPTERS, ...ASSEMBLY, ...ENTRY, ...WORKFLOW_CODE],
    'the ground floor (domain, security, settings, logging, tracing, the database plumbing, workflow names) imports nothing above it.',
  ),
  {
    target: ['./src/!(services|temporal)/**', './src/{app,config,logger}.ts', './workflows'],
    from: './src/temporal',
    message: 'Only the assembly (src/services/container.ts) knows the Temporal adapters; code depends on the port its module declares.',
  },
  {
    target: './src/modules/rooms',
    from: './src/modules/recordings',
    message: 'A recording belongs to a room, not the reverse: rooms state what they need in room.ports.ts.',
  },
  {
    target: './src/modules/participants',
    from: ['./src/modules/auth', './src/credentials'],
    message: 'Auth issues credentials for participants, not the reverse: participants state what they need in participant.ports.ts.',
  },
];

export default defineConfig(
  {
    // generated/ is never edited by hand (npm run generate); test/sdk/*.flow.ts and examples/sdk/ import the git-ignored .sdk/ clients
    // and are outside the tsconfig, so the type-aware rules cannot run there.
    ignores: ['node_modules/**', 'dist/**', 'coverage/**', '.sdk/**', '.tools/**', 'generated/**', 'test/sdk/*.flow.ts', 'examples/sdk/**'],
  },
  {
    files: ['{src,workflows,dev,scripts,test,bench,examples}/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // Namespaces only where a library's types demand one (Express's Request augmentation), with a disable comment.
      '@typescript-eslint/no-namespace': 'error',
    },
  },
  {
    files: ['{src,workflows}/**/*.ts'],
    plugins: { 'import-x': importX },
    // Imports name their .ts files in full, so Node's resolution finds them; the imported files are parsed as TypeScript.
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones: LAYERS }],
      // An import() whose path is computed is one no rule above can follow (a production build once reached scripts/
      // that way): name the module, or leave the import to dev/ or scripts/.
      'no-restricted-syntax': [
        'error',
        { selector: "ImportExpression[source.type!='Literal']", message: 'import() of a computed path: lint cannot check where it leads; name the module.' },
      ],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: BUILTINS.map((name) => ({
            name,
            message: 'Workflow code runs in a deterministic sandbox: no Node built-ins (do the I/O in an activity).',
            allowTypeImports: true,
          })),
          patterns: [
            {
              regex: '^node:',
              message: 'Workflow code runs in a deterministic sandbox: no Node built-ins (do the I/O in an activity).',
              allowTypeImports: true,
            },
            {
              // Anything but the workflow SDK, ./shared.ts and other workflow files (./…), and not a built-in (above).
              regex: `^(?!@temporalio/workflow$|\\./|node:|(?:${BUILTINS.map(escape).join('|')})$)`,
              message:
                'Workflow code imports only @temporalio/workflow, ./shared.ts and other workflow files; use `import type` for activity types.',
              allowTypeImports: true,
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ImportExpression', message: 'No dynamic import() in workflow code: the bundle is fixed at worker start.' },
      ],
      'no-restricted-globals': [
        'error',
        ...['process', 'require', 'fetch', 'setTimeout', 'setInterval'].map((name) => ({
          name,
          message: `\`${name}\` in workflow code is I/O or host time: use the workflow SDK (sleep, condition) or an activity.`,
        })),
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Math.random in workflow code: use uuid4() or an activity.' },
      ],
    },
  },
);
