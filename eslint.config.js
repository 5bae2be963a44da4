// ESLint (flat config) with typescript-eslint's type-aware parser: the rules a reviewer should never have to check by
// eye (docs/architecture.md habit 2). `npm run lint`; `npm test` runs it before tsc with --max-warnings 0.
//
// 1. Everywhere the tsconfig reaches: a promise is awaited, returned, or handed to `void` on purpose. A floating
//    promise is a rejection nobody hears (an unhandled rejection kills the process) or work that races shutdown.
// 2. workflows/**: workflow code is replayed from history, so it must be deterministic and free of I/O. It may import
//    the workflow SDK, ./shared.ts and other workflow files; anything else only with `import type` (erased before
//    the SDK bundles the code). Node built-ins and the globals that read the clock of the host, randomness, or the
//    network are refused, so a mistake fails here and not in a replay in production.
import { builtinModules } from 'node:module';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Node built-ins by bare name (`fs`, `fs/promises`); `node:`-prefixed names are matched by pattern. */
const BUILTINS = builtinModules.filter((name) => !name.startsWith('_') && !name.startsWith('node:'));
const escape = (name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

export default defineConfig(
  {
    // generated/ is never edited by hand (npm run generate); test/sdk/*.flow.ts and examples/sdk/ import the git-ignored .sdk/ clients
    // and are outside the tsconfig, so the type-aware rules cannot run there.
    ignores: ['node_modules/**', 'dist/**', 'coverage/**', '.sdk/**', '.tools/**', 'generated/**', 'test/sdk/*.flow.ts', 'examples/sdk/**'],
  },
  {
    files: ['{src,workflows,scripts,test,bench,examples}/**/*.ts'],
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
