// The order jest starts test files in (jest.config.js testSequencer). Jest's own order puts files that failed last
// time first, then the slowest by the durations it cached; with no cache (a clean clone, CI) it goes by file size, and
// the longest files of the suite are among the smallest (a fault test that is one line calling a shared scenario), so
// they started last and one worker ran them alone at the end while the other had nothing left (about 2 minutes of a
// clean-clone run). Here the files known to take longest (their times in a clean-clone run, the slowest first) start
// first; every other file keeps jest's order after them. A file missing from the list is only started later. When jest
// has timed most files before (its cache, on a developer's machine), its own order stands.
import jestSequencer from '@jest/test-sequencer';
import type { Test } from '@jest/test-result';

// Its ESM entry (index.mjs, what Node loads) exports the class itself; its typings describe the CommonJS file.
const DefaultSequencer = jestSequencer as unknown as typeof jestSequencer.default;

/**
 * Test files that took 15 s or more in a clean-clone run on 2 cores (2026-11-29, evening, under jest-light-runner),
 * long ones first. Many of them mostly wait (a fault test's backoff, a retry schedule, a paused PostgreSQL) and others
 * mostly compute (generating an SDK, compiling the build, Chromium, a 1 GiB upload): they alternate, so that while one
 * worker waits the other has work for the CPU. The SDK tests: the two that generate a client (typescript-fetch, python;
 * each its own folder) start at once, and the one that uses both (examples) comes last, when they are generated and
 * cached (scripts/sdk.ts; a lock per folder there, should two meet anyway).
 */
const SLOWEST_FIRST = [
  'test/sdk/typescript.test.ts', // computes (generation, tsc)
  'test/sdk/python.test.ts', // computes
  'test/integration/faults/postgres-pause-pipeline.test.ts', // waits
  'test/integration/build.test.ts', // computes
  'test/integration/deliveries/restarts.test.ts', // waits
  'test/e2e/browser.test.ts', // computes
  'test/integration/faults/postgres-restart.test.ts', // waits
  'test/integration/recordings/object-store.test.ts', // computes
  'test/integration/deliveries/deliveries.test.ts', // waits
  'test/integration/pipeline/recording-trace.test.ts',
  'test/integration/faults/postgres-outage-pipeline.test.ts', // waits
  'test/integration/realtime/multi-instance.test.ts',
  'test/integration/faults/temporal-restart.test.ts', // waits
  'test/integration/realtime/resume.test.ts',
  'test/integration/faults/s3-unreachable.test.ts', // waits
  'test/integration/transcripts/transcripts.test.ts',
  'test/integration/transcripts/worker-crash.test.ts',
  'test/integration/recordings/lifecycle.test.ts',
  'test/sdk/examples.test.ts',
];

export default class SlowestFirstSequencer extends DefaultSequencer {
  override async sort(tests: Array<Test>): Promise<Array<Test>> {
    const jestOrder = await super.sort(tests);
    // Most files timed by a run before (jest's cache, a developer's machine): jest's order is the better one.
    if (jestOrder.filter((test) => test.duration != null).length > jestOrder.length / 2) return jestOrder;
    const rank = (test: Test) => {
      const index = SLOWEST_FIRST.findIndex((path) => test.path.endsWith(`/${path}`));
      return index < 0 ? SLOWEST_FIRST.length : index;
    };
    return [...jestOrder].sort((a, b) => rank(a) - rank(b)); // stable: the rest keep jest's order
  }
}
