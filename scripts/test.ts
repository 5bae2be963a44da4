// `npm test`: every check CI runs, in order, each named as it starts. Stops at the first failing step, and always ends
// with one plain line "N passed, N failed" (jest's own count) so a reader or CI sees the outcome at a glance.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const node = process.execPath; // Node 24 from the `node` devDependency: npm scripts put it first on PATH
const bin = (name: string) => join('node_modules', '.bin', name);

const steps: Array<[string, string, string[]]> = [
  // First: a second, and it needs nothing installed. Every cited section must exist in docs/ (no trail leads outside,
  // and no comment or doc line cites an issue number: the repository holds no tracker).
  ['citations lead to docs/decisions.md and docs/architecture.md (scripts/check-citations.ts)', node, ['scripts/check-citations.ts']],
  ['install the service binaries and the fuzzer (temporal, temporal-test-server, weed, schemathesis)', node, ['scripts/tools.ts']],
  ['generated/ is up to date with spec/', node, ['scripts/check-generated.ts']],
  // Fetched once here (Maven Central, version pinned in openapitools.json) so the SDK tests never race to download it.
  ['openapi-generator JAR for the SDK tests', node, ['node_modules/@openapitools/openapi-generator-cli/main.js', 'version']],
  ['OpenAPI lint (Redocly)', bin('redocly'), ['lint', 'spec/openapi.yaml', '--format', 'stylish']],
  ['AsyncAPI validation (@asyncapi/parser)', node, ['scripts/lint-asyncapi.ts']],
  ['AsyncAPI validation (@asyncapi/cli validate, offline)', node, ['scripts/asyncapi-cli.ts', 'validate', 'spec/asyncapi.yaml', '--fail-severity', 'warn']],
  // eslint.config.js: no floating promises anywhere; workflows/ import nothing but the workflow SDK, workflow files and types.
  ['lint (ESLint with typescript-eslint, type-aware; no warnings allowed)', bin('eslint'), ['--max-warnings', '0', '.']],
  ['type check (tsc)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
  // ~2.5 min on 2 cores: two time-boxed schemathesis runs (tenant key, admin key) against the real app and services.
  ['contract fuzzing (schemathesis over spec/openapi.yaml, scripts/fuzz.ts)', node, ['scripts/fuzz.ts']],
];

// Said up front, so nobody takes a quiet minute for a hang.
console.log(
  'npm test takes about 11 minutes on 2 idle cores, up to 16 on a busy machine (the first run longer: it installs the service binaries, the fuzzer and ' +
    'the openapi-generator JAR): contract fuzzing ~2.5 min, printing a progress line every 30 s, then jest ~8.5 min (~12 when busy).',
);

for (const [title, command, args] of steps) {
  console.log(`\n▶ ${title}`);
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`\n✖ ${title} failed`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}

console.log('\n▶ jest (unit, integration, workflow tests against the real services)');
const outDir = mkdtempSync(join(tmpdir(), 'convene-jest-'));
const outFile = join(outDir, 'results.json');
const jest = spawnSync(
  node,
  ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning', bin('jest'), '--json', `--outputFile=${outFile}`, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
let passed = 0;
let failed = 1;
try {
  const results = JSON.parse(readFileSync(outFile, 'utf8'));
  passed = results.numPassedTests;
  failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
} catch {
  console.error('jest wrote no results');
}
rmSync(outDir, { recursive: true, force: true });
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(jest.status === 0 && failed === 0 && passed > 0 ? 0 : 1);
