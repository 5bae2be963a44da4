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
//    layers); production code never imports development-only or test code; a module never imports the Temporal
//    adapters, the activities or the assembly (it declares a port in <module>.ports.ts and they implement it).
import { builtinModules } from 'node:module';
import { defineConfig } from 'eslint/config';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** Node built-ins by bare name (`fs`, `fs/promises`); `node:`-prefixed names are matched by pattern. */
const BUILTINS = builtinModules.filter((name) => !name.startsWith('_') && !name.startsWith('node:'));
const escape = (name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Development-only and test code: dev/ (the development media server, fault hooks), tests, benchmarks, scripts, examples. */
const DEV_ONLY = ['./dev', './test', './bench', './scripts', './examples'];
/** What only the assembly (src/services/, src/main.ts, src/worker.ts) may reach: the Temporal adapters and the worker side. */
const ADAPTERS = ['./src/temporal', './src/activities', './src/services', './src/app.ts', './src/main.ts', './src/worker.ts'];

/** The layer rule (docs/architecture.md habit 16): each zone says which files may not import which. */
const LAYERS = [
  {
    target: ['./src', './workflows'],
    from: DEV_ONLY,
    message: 'Production code never imports development-only or test code: move what both need below both.',
  },
  {
    target: './src/modules',
    from: [...ADAPTERS, './src/realtime', './src/auth', './src/handover/relay.ts'],
    message: 'A module declares what it needs as a port (<module>.ports.ts) and the adapter implements it; it never imports the adapter.',
  },
  {
    target: ['./src/!(services|temporal)/**', './src/{app,config,logger}.ts', './workflows'],
    from: './src/temporal',
    message: 'Only the assembly (src/services/container.ts) knows the Temporal adapters; code depends on the port its module declares.',
  },
  {
    target: ['./src/domain', './src/security', './src/logger.ts', './src/config.ts', './src/db/!(entities).ts'],
    from: ['./src/modules', './src/realtime', './src/activities', './src/handover', './src/providers', './src/upstream', './src/storage', './workflows'],
    // Not src/db/entities.ts (the list of every entity the ORM maps) nor src/db/migrations/ (a data migration may use a
    // module's code): both are read by the ORM set-up only.
    message: 'The ground floor (domain, security, settings, the database plumbing) imports nothing above it.',
  },
  {
    target: './src/modules/rooms',
    from: './src/modules/recordings',
    message: 'A recording belongs to a room, not the reverse: rooms state what they need in room.ports.ts.',
  },
  {
    target: './src/modules/participants',
    from: ['./src/modules/auth', './src/auth'],
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
