// `npm test`: every check CI runs, each named as it starts, ending with one plain line "N passed, N failed" (jest's own
// count) so a reader or CI sees the outcome at a glance; any failing step fails `npm test`, named, with its output.
//
// Two cores, so the order is chosen by who waits for whom (BENCHMARKS.md, "The test suite's time"):
//   1. the citation check (a second), then the service binaries, the fuzzer and the openapi-generator JAR, all at once
//      (downloads: jest, the fuzzing and the SDK tests need them);
//   2. jest, the contract fuzzing and the static checks (lint, type check, spec validations) all at once. Jest is the
//      long pole (about ten minutes) and leaves part of both cores idle while its tests wait on real services; the
//      static checks run at the lowest CPU priority, so they take that idle time and never slow a test down. The
//      fuzzing is bounded by the clock (FUZZ_MAX_TIME), not by work, and runs at normal priority beside jest.
// Jest's output streams as it comes; the fuzzing's and each static check's output is held back and printed whole,
// under its title, when it ends, so no two outputs mix.
import { spawn } from 'node:child_process';
import { runHeldOutput } from './held-output.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';

const node = process.execPath; // Node 24 from the `node` devDependency: npm scripts put it first on PATH
const bin = (name: string) => join('node_modules', '.bin', name);

type Step = [title: string, command: string, args: string[]];

// A second, and it needs nothing installed. Every cited section must exist in docs/ (no trail leads outside, and no
// comment or doc line cites an issue number: the repository holds no tracker).
const citations: Step = ['citations lead to docs/decisions.md and docs/architecture.md (scripts/check-citations.ts)', node, ['scripts/check-citations.ts']];

// Downloads, side by side, before anything that needs them.
const downloads: Step[] = [
  ['the service binaries and the fuzzer (temporal, temporal-test-server, weed, schemathesis; scripts/tools.ts)', node, ['scripts/tools.ts']],
  // Fetched once here (Maven Central, version pinned in openapitools.json) so the SDK tests never race to download it.
  ['the openapi-generator JAR for the SDK tests', node, ['node_modules/@openapitools/openapi-generator-cli/main.js', 'version']],
];

// Two time-boxed schemathesis runs (tenant key, admin key) at once against the real app and services: ~1.5 min.
const fuzzing: Step = ['contract fuzzing (schemathesis over spec/openapi.yaml, scripts/fuzz.ts)', node, ['scripts/fuzz.ts']];

// One after another, at the lowest CPU priority, in the time jest leaves idle.
const staticChecks: Step[] = [
  ['generated/ is up to date with spec/', node, ['scripts/check-generated.ts']],
  ['OpenAPI lint (Redocly)', bin('redocly'), ['lint', 'spec/openapi.yaml', '--format', 'stylish']],
  ['AsyncAPI validation (@asyncapi/parser)', node, ['scripts/lint-asyncapi.ts']],
  ['AsyncAPI validation (@asyncapi/cli validate, offline)', node, ['scripts/asyncapi-cli.ts', 'validate', 'spec/asyncapi.yaml', '--fail-severity', 'warn']],
  // eslint.config.js: no floating promises anywhere; workflows/ import nothing but the workflow SDK, workflow files and types.
  ['lint (ESLint with typescript-eslint, type-aware; no warnings allowed)', bin('eslint'), ['--max-warnings', '0', '.']],
  ['type check (tsc)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
];

interface Outcome {
  title: string;
  ok: boolean;
}

/** Runs a step with its output held back (scripts/held-output.ts), then printed in one piece under its title. */
async function runHeld([title, command, args]: Step, options: { priority?: number } = {}): Promise<Outcome> {
  const started = performance.now();
  const { code, output } = await runHeldOutput(command, args, options);
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  const ok = code === 0;
  // One write: whole lines, never in the middle of another step's line.
  process.stdout.write(`\n▶ ${title} (${seconds} s): ${ok ? 'passed' : `FAILED (exit code ${code})`}\n${output}`);
  return { title, ok };
}

async function runStaticChecks(): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const step of staticChecks) outcomes.push(await runHeld(step, { priority: constants.priority.PRIORITY_LOW }));
  return outcomes;
}

/** Jest with its output live; resolves to its exit code and the passed and failed counts of its JSON report. */
async function runJest(): Promise<{ ok: boolean; passed: number; failed: number }> {
  console.log('\n▶ jest (unit, integration, workflow tests against the real services; the fuzzing and static checks run beside it)');
  const outDir = mkdtempSync(join(tmpdir(), 'convene-jest-'));
  const outFile = join(outDir, 'results.json');
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(
      node,
      ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning', bin('jest'), '--json', `--outputFile=${outFile}`, ...process.argv.slice(2)],
      { stdio: 'inherit' },
    );
    child.on('error', () => resolve(null));
    child.on('close', resolve);
  });
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
  return { ok: code === 0 && failed === 0 && passed > 0, passed, failed };
}

function report(failures: Outcome[], passed: number, failed: number): never {
  for (const { title } of failures) console.error(`\n✖ ${title} failed`);
  // A failing step that is not a jest test still counts, so the last line never reads "0 failed" on a red run.
  const otherFailures = failures.filter(({ title }) => !title.startsWith('jest')).length;
  console.log(`\n${passed} passed, ${failed + otherFailures} failed`);
  process.exit(failures.length === 0 ? 0 : 1);
}

// Said up front, so nobody takes a quiet minute for a hang.
console.log(
  'npm test took about 14 minutes on 2 cores in the clean-clone run of 2026-11-29 (17 with npm ci; the first run installs the service ' +
    'binaries, the fuzzer and the openapi-generator JAR): jest ~11.5 min, with the contract fuzzing and the static checks beside it; ' +
    'longer on a busy machine.',
);

const cited = await runHeld(citations);
if (!cited.ok) report([cited], 0, 0);
const downloaded = await Promise.all(downloads.map((step) => runHeld(step)));
if (downloaded.some((outcome) => !outcome.ok)) report(downloaded.filter((outcome) => !outcome.ok), 0, 0);

const [jest, fuzzOutcome, staticOutcomes] = await Promise.all([runJest(), runHeld(fuzzing), runStaticChecks()]);
const failures = [...staticOutcomes, fuzzOutcome, ...(jest.ok ? [] : [{ title: 'jest', ok: false }])].filter((outcome) => !outcome.ok);
report(failures, jest.passed, jest.failed);
