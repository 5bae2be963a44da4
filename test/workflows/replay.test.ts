// Runs in flight when a worker is upgraded replay their histories on the new workflow code, so a change in a workflow's
// command sequence (another step, a step of another kind, steps reordered or run together) must go behind patched().
// These histories were recorded from the pipeline's workflows as they are (ingestion with its retention and
// post-meeting children, post-meeting with its transcription child, a retention timer still sleeping), on the
// time-skipping server with stub activities. A change that would break the runs in flight fails here (checked with
// the quick database steps made local activities without a patch: every one failed with a nondeterminism error).
// When a change is patched, record the new histories beside these and keep these. The four named for their patch
// (post-meeting-inline-transcription, recording-ingest-children-together, recording-retention-given-deadline,
// transcription-provider-queue; issue 23) were recorded from the pipeline test's run on the dev server with the real
// activities.
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKFLOWS_PATH } from '../../src/worker.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'histories');
const histories = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => [name, JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'))] as const);

beforeAll(() => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Already installed by another test file in this jest worker.
  }
});

test('the fixtures cover each workflow of the recording pipeline', () => {
  expect(histories.map(([name]) => name)).toEqual([
    'post-meeting-inline-transcription.json',
    'post-meeting.json',
    'recording-ingest-children-together.json',
    'recording-ingest.json',
    'recording-retention-given-deadline.json',
    'recording-retention-sleeping.json',
    'recording-retention.json',
    'transcription-provider-queue.json',
    'transcription.json',
  ]);
});

test('every one replays on the current workflow code, without a nondeterminism error', async () => {
  // One replay worker (one bundle of workflows/) for all of them; the file name stands in for the workflow id.
  const outcomes: Array<[string, string | undefined]> = [];
  const results = Worker.runReplayHistories(
    { workflowsPath: WORKFLOWS_PATH },
    histories.map(([name, history]) => ({ workflowId: name, history })),
  );
  for await (const result of results) outcomes.push([result.workflowId, result.error?.message]);
  expect(outcomes).toEqual(histories.map(([name]) => [name, undefined]));
}, 120_000);
