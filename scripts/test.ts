// `npm test`: every check CI runs, each named as it starts. Stops after the first stage with a failing step, and always
// ends with one plain line "N passed, N failed" (jest's own count) so a reader or CI sees the outcome at a glance.
//
// Contract fuzzing is time-boxed by the clock (FUZZ_MAX_TIME per run), not by work, so the static checks (lint, type
// check, spec validations) run beside it in two lanes (below) instead of before it: the fuzzing's output streams as it
// comes, and each static check's output is held back and printed whole, under its title, when that check ends, so no
// two outputs mix. A failing check still fails `npm test`, named, with its output.
import { spawn } from 'node:child_process';
import { runHeldOutput } from './held-output.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const node = process.execPath; // Node 24 from the `node` devDependency: npm scripts put it first on PATH

// Every Node process of the run (jest's workers, the API and worker processes the tests start, tsc, ESLint, the CLIs)
// keeps the code V8 compiled for the modules it loads through Node's own loader on disk, and the next one reuses it:
// about 0.9 s of CPU less per API or worker process, and dozens start; jest's workers load the test files through
// Node's loader too (jest-light-runner, jest.config.js). In node_modules/.cache, so a fresh `npm ci` starts empty.
process.env.NODE_COMPILE_CACHE ??= join(process.cwd(), 'node_modules', '.cache', 'node-compile-cache');
const bin = (name: string) => join('node_modules', '.bin', name);

type Step = [title: string, command: string, args: string[]];

// First: a second, and it needs nothing installed. Every cited section must exist in docs/ (no trail leads outside,
// and no comment or doc line cites an issue number: the repository holds no tracker).
const citations: Step = ['citations lead to docs/decisions.md and docs/architecture.md (scripts/check-citations.ts)', node, ['scripts/check-citations.ts']];

// Then the downloads the rest needs, side by side.
const tools: Step = ['install the service binaries and the fuzzer (temporal, temporal-test-server, weed, schemathesis)', node, ['scripts/tools.ts']];
// Fetched once here (Maven Central, version pinned in openapitools.json) so the SDK tests never race to download it.
const generatorJar: Step = ['openapi-generator JAR for the SDK tests', node, ['node_modules/@openapitools/openapi-generator-cli/main.js', 'version']];

// ~1.5 min on 2 cores: two time-boxed schemathesis runs (tenant key, admin key) at once against the real app and
// services. Its output is shown as it comes (a progress line every 30 s).
const fuzzing: Step = ['contract fuzzing (schemathesis over spec/openapi.yaml, scripts/fuzz.ts)', node, ['scripts/fuzz.ts']];

// Beside the fuzzing, in two lanes of about a minute each, one check after another in each lane: the fuzzing takes
// about 80 s and most of the cores while it runs, and then both lanes have a core each (in one lane, the checks went
// on alone on one core for 45 s after the fuzzing ended).
const staticLanes: Step[][] = [
  [
    // eslint.config.js: no floating promises anywhere; workflows/ import nothing but the workflow SDK, workflow files and types.
    ['lint (ESLint with typescript-eslint, type-aware; no warnings allowed)', bin('eslint'), ['--max-warnings', '0', '.']],
  ],
  [
    ['generated/ is up to date with spec/', node, ['scripts/check-generated.ts']],
    ['OpenAPI lint (Redocly)', bin('redocly'), ['lint', 'spec/openapi.yaml', '--format', 'stylish']],
    ['AsyncAPI validation (@asyncapi/parser)', node, ['scripts/lint-asyncapi.ts']],
    ['AsyncAPI validation (@asyncapi/cli validate, offline)', node, ['scripts/asyncapi-cli.ts', 'validate', 'spec/asyncapi.yaml', '--fail-severity', 'warn']],
    ['type check (tsc)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
  ],
];

interface Outcome {
  title: string;
  ok: boolean;
}

/** Runs a step with its output going straight to ours. */
function runLive([title, command, args]: Step): Promise<Outcome> {
  console.log(`\n▶ ${title}`);
  const child = spawn(command, args, { stdio: 'inherit' });
  return new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(error);
      resolve({ title, ok: false });
    });
    child.on('close', (code) => resolve({ title, ok: code === 0 }));
  });
}

/** Runs a step with its output held back (scripts/held-output.ts), then printed in one piece under its title. */
async function runHeld([title, command, args]: Step, beside: string): Promise<Outcome> {
  const started = performance.now();
  const { code, output } = await runHeldOutput(command, args);
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  const ok = code === 0;
  // One write: whole lines, never in the middle of another step's line (fuzzing writes whole lines too).
  process.stdout.write(`\n▶ ${title} (beside ${beside}, ${seconds} s): ${ok ? 'passed' : `FAILED (exit code ${code})`}\n${output}`);
  return { title, ok };
}

/** Streams a step's output line by line, so a held-back block printed meanwhile falls between two whole lines. */
function runLineByLine([title, command, args]: Step): Promise<Outcome> {
  console.log(`\n▶ ${title} (the static checks run beside it; each is printed when it ends)`);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  for (const [stream, target] of [[child.stdout, process.stdout], [child.stderr, process.stderr]] as const) {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      pending += chunk;
      const end = pending.lastIndexOf('\n');
      if (end < 0) return;
      target.write(pending.slice(0, end + 1));
      pending = pending.slice(end + 1);
    });
    stream.on('end', () => {
      if (pending) target.write(`${pending}\n`);
    });
  }
  return new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(error);
      resolve({ title, ok: false });
    });
    child.on('close', (code) => resolve({ title, ok: code === 0 }));
  });
}

function fail(failures: Outcome[]): never {
  for (const { title } of failures) console.error(`\n✖ ${title} failed`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}

// Said up front, so nobody takes a quiet minute for a hang.
console.log(
  'npm test took about 8.2 minutes on 2 cores in a clean-clone run of 2026-11-29 (11.2 with npm ci; the first run installs the service ' +
    'binaries, the fuzzer and the openapi-generator JAR): contract fuzzing with the static checks beside it ~1.8 min, printing a progress ' +
    'line every 30 s, then jest ~6 min; longer on a busy machine.',
);

const cited = await runLive(citations);
if (!cited.ok) fail([cited]);
const downloads = await Promise.all([runLive(tools), runHeld(generatorJar, 'the service binaries')]);
if (downloads.some((outcome) => !outcome.ok)) fail(downloads.filter((outcome) => !outcome.ok));

const runLane = async (lane: Step[]): Promise<Outcome[]> => {
  const outcomes: Outcome[] = [];
  for (const step of lane) outcomes.push(await runHeld(step, 'the fuzzing'));
  return outcomes;
};
const [fuzzOutcome, ...laneOutcomes] = await Promise.all([runLineByLine(fuzzing), ...staticLanes.map(runLane)]);
const staticOutcomes = laneOutcomes.flat();
const failures = [...staticOutcomes, fuzzOutcome].filter((outcome) => !outcome.ok);
if (failures.length > 0) fail(failures);

console.log('\n▶ jest (unit, integration, workflow tests against the real services)');
const outDir = mkdtempSync(join(tmpdir(), 'convene-jest-'));
const outFile = join(outDir, 'results.json');
const jest = await new Promise<number | null>((resolve) => {
  const child = spawn(
    node,
    [bin('jest'), '--json', `--outputFile=${outFile}`, ...process.argv.slice(2)],
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
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(jest === 0 && failed === 0 && passed > 0 ? 0 : 1);
