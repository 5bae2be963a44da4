// Contract fuzzing (a step of `npm test`): schemathesis, pinned and installed by scripts/tools.ts, generates requests
// from spec/openapi.yaml against the real app listening on a free port, on the same real services the jest harness
// starts (PostgreSQL, Temporal, SeaweedFS). Two runs, one per credential (a tenant API key, the admin key), at the same
// time against the same app: each is bounded by the clock (FUZZ_MAX_TIME), so side by side they take one budget instead
// of two. Each run's output is held back and printed whole when it ends; the progress lines say meanwhile that both live.
// Every phase (examples, coverage, fuzzing, stateful) runs, and these checks must find nothing:
//   not_a_server_error, response_schema_conformance, status_code_conformance, content_type_conformance,
//   response_headers_conformance.
// The app validates its own responses against the spec too (VALIDATE_RESPONSES on under NODE_ENV=test), so a body that
// breaks the contract shows up as a 500.
//
// Generic on purpose: every operation of the contract is fuzzed; a new operation is covered the day it is added.
//
//   node scripts/fuzz.ts                       both runs, bounded for CI's 2 cores (FUZZ_MAX_EXAMPLES, FUZZ_MAX_TIME)
//   node scripts/fuzz.ts -- --seed 42          extra arguments go to `st run` (e.g. a seed to reproduce a failure)
import { runHeldOutput, type HeldRun } from './held-output.ts';
import { join } from 'node:path';
import globalSetup from '../test/harness/global-setup.ts';
import globalTeardown from '../test/harness/global-teardown.ts';
import { createTenant } from '../test/helpers/fixtures.ts';
import { freePort } from '../test/helpers/free-port.ts';
import { createRecordingStack } from '../test/helpers/recording-stack.ts';
import { ADMIN_KEY } from '../test/helpers/test-app.ts';
import { ensureTool, projectRoot } from './tools.ts';

const CHECKS = [
  'not_a_server_error',
  'response_schema_conformance',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
];
const MAX_EXAMPLES = process.env.FUZZ_MAX_EXAMPLES ?? '10';
/**
 * Seconds per run; the stateful phase repeats until the budget is spent, so this bounds the whole step. Within it the
 * examples and coverage phases (deterministic: every operation, every documented example and boundary) take ~15 s and
 * always complete; the rest goes to random fuzzing and stateful scenarios. 60 s (was 90) keeps every phase and every
 * check and about half the random cases (~3,000 instead of ~6,400 per run on 2 cores), so `npm test` is a minute shorter;
 * examples that failed before are replayed first from the generation database. FUZZ_MAX_TIME=600 for a long hunt.
 */
const MAX_TIME = process.env.FUZZ_MAX_TIME ?? '60';

async function main(extraArgs: string[]): Promise<number> {
  const st = await ensureTool('st');
  await globalSetup();
  // The recording tests' stack: the app listening on a free port, the development media server as the media provider
  // and, as in `npm run dev`, the `openai` transcription provider and the openai-compatible AI (docs/decisions.md §8–9), so
  // every operation runs as deployed; a real worker process. A generous rate limit: the fuzzer is one tenant sending
  // thousands of requests on purpose.
  const mediaPort = await freePort();
  const stack = await createRecordingStack({
    media: { port: mediaPort },
    env: {
      RATE_LIMIT_PER_MINUTE: '1000000',
      // Schemathesis sends thousands of wrong credentials from loopback on purpose (docs/decisions.md §14's limit would stop it).
      AUTH_FAILURE_LIMIT_PER_MINUTE: '1000000',
      OPENAI_BASE_URL: `http://127.0.0.1:${mediaPort}/v1`,
      AI_BASE_URL: `http://127.0.0.1:${mediaPort}/v1`,
      OPENAI_TRANSCRIPTION_MODEL: 'whisper-1',
    },
  });
  const worker = await stack.startWorker();
  const { t, baseUrl } = stack;
  let failed = 0;
  try {
    const tenant = await createTenant(t, { name: 'Fuzzed tenant' });
    const runs: Array<[string, string]> = [
      ['tenant API key', `X-API-Key: ${tenant.api_key}`],
      ['admin key', `X-Admin-Key: ${ADMIN_KEY}`],
    ];
    console.log(`\nfuzz: schemathesis with the ${runs.map(([label]) => label).join(' and with the ')}, at once (budget ${MAX_TIME} s each)`);
    const stopReporting = reportProgress(runs.map(([label]) => label).join(' and the '), baseUrl);
    const codes = await Promise.all(
      runs.map(async ([label, header]) => {
        const { code, output } = await runSchemathesis(st, baseUrl, header, extraArgs);
        // One write: the whole run under its title, never mixed with the other run's lines.
        process.stdout.write(`\n▶ schemathesis with the ${label}${code === 0 ? '' : ` (FAILED, exit code ${code})`}\n${output}`);
        return code;
      }),
    ).finally(stopReporting);
    failed = codes.filter((code) => code !== 0).length;
  } finally {
    await worker.stop();
    await stack.close();
    await globalTeardown();
  }
  console.log(failed === 0 ? '\nfuzz: both runs found no failure' : `\nfuzz: ${failed} of 2 runs failed`);
  return failed === 0 ? 0 : 1;
}

const PROGRESS_EVERY_MS = 30_000;

/**
 * schemathesis prints little while a phase runs (the fuzzing and stateful phases can be silent for a minute), so every
 * 30 s say that the run is alive and how many requests the app has answered so far (its own Prometheus counter).
 */
function reportProgress(label: string, baseUrl: string): () => void {
  const started = performance.now();
  const timer = setInterval(() => {
    void answeredRequests(baseUrl).then((answered) => {
      const seconds = Math.round((performance.now() - started) / 1000);
      const count = answered === null ? '' : `, ${answered} requests answered by the app so far`;
      console.log(`fuzz: the ${label} runs are at ${seconds} s (budget ${MAX_TIME} s)${count}`);
    });
  }, PROGRESS_EVERY_MS);
  return () => clearInterval(timer);
}

/** The sum of the app's `convene_http_request_duration_seconds_count` series, or null when /metrics does not answer. */
async function answeredRequests(baseUrl: string): Promise<number | null> {
  try {
    const response = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(5000) });
    if (!response.ok) return null;
    let total = 0;
    for (const line of (await response.text()).split('\n')) {
      if (line.startsWith('convene_http_request_duration_seconds_count')) total += Number(line.slice(line.lastIndexOf(' ') + 1)) || 0;
    }
    return total;
  } catch {
    return null;
  }
}

/** One schemathesis run; its output (stdout and stderr, in order) comes back whole when it ends. */
function runSchemathesis(st: string, baseUrl: string, header: string, extraArgs: string[]): Promise<HeldRun> {
  const args = [
    'run',
    join(projectRoot, 'spec', 'openapi.yaml'),
    '--url', baseUrl,
    '--header', header,
    '--phases', 'examples,coverage,fuzzing,stateful',
    '--checks', CHECKS.join(','),
    '--max-examples', MAX_EXAMPLES,
    '--max-time', MAX_TIME,
    '--workers', '1',
    '--request-timeout', '10',
    '--no-color',
    // Examples that failed before are tried first next time; kept in the git-ignored .tools/, not in the project root.
    '--generation-database', join(projectRoot, '.tools', 'schemathesis-examples'),
    '--suppress-health-check', 'too_slow,filter_too_much',
    ...extraArgs,
  ];
  // Run from the git-ignored .tools/: schemathesis keeps its state (`.schemathesis/`) in the working directory.
  return runHeldOutput(st, args, { cwd: join(projectRoot, '.tools'), env: { ...process.env, SCHEMATHESIS_TELEMETRY: 'false' } });
}

main(process.argv.slice(2).filter((a) => a !== '--')).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
