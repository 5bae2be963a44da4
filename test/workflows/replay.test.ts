// Runs in flight when a worker is upgraded replay their histories on the new workflow code: a change in a workflow's
// command sequence must be behind patched() (docs/scaling.md, "A burst"). These histories were recorded from the code
// before the quick database steps became local activities and before ingestion started its two children together
// (workflows/database-steps.ts, workflows/recording-ingest.ts), with stub activities; and, for the new path, from
// the code after. Without the patches, replaying the older ones fails with a nondeterminism error.
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

test('the fixtures cover each workflow of the recording pipeline, before and after the change', () => {
  expect(histories.map(([name]) => name)).toEqual([
    'after.post-meeting.json',
    'after.recording-ingest.json',
    'after.recording-retention.json',
    'after.transcription.json',
    'before.post-meeting.json',
    'before.recording-ingest.json',
    'before.recording-retention-sleeping.json',
    'before.recording-retention.json',
    'before.transcription.json',
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
