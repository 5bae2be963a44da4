// Runs in flight when a worker is upgraded replay their histories on the new workflow code, so a change in a workflow's
// command sequence (another step, a step of another kind, steps reordered or run together) must go behind patched().
// These histories were recorded from the pipeline's workflows as they are (ingestion with its retention and
// post-meeting children, post-meeting with its transcription child, a retention timer still sleeping), on the
// time-skipping server with stub activities. A change that would break the runs in flight fails here (checked with
// the quick database steps made local activities without a patch: every one failed with a nondeterminism error).
// When a change is patched, record the new histories beside these and keep these. The four named for their patch
// (post-meeting-inline-transcription, recording-ingest-children-together, recording-retention-given-deadline,
// transcription-provider-queue) were recorded from the pipeline test's run on the dev server with the real
// activities. The three `-traced` ones were recorded with tracing on (docs/decisions.md §12: the OpenTelemetry
// interceptors' trace headers in them), from test/integration/pipeline/recording-trace.test.ts's run. Turning tracing on
// or off is a worker upgrade too: every history replays both without the tracing interceptors and with them.
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { DefaultLogger, Runtime, Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKFLOWS_PATH } from '../../src/worker.ts';
import { testWorkflows } from '../helpers/workflow-bundle.ts';
import { temporalWorkerTracing } from '../../src/tracing/tracing.ts';

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
    'post-meeting-traced.json',
    'post-meeting.json',
    'recording-ingest-children-together.json',
    'recording-ingest-traced.json',
    'recording-ingest.json',
    'recording-retention-given-deadline.json',
    'recording-retention-sleeping.json',
    'recording-retention.json',
    'transcription-provider-queue.json',
    'transcription.json',
    'webhook-delivery-traced.json',
  ]);
});

/** Every history replayed by one replay worker (one bundle of workflows/); the file name stands in for the workflow id. */
async function replayAll(options: ReplayWorkerOptions): Promise<Array<[string, string | undefined]>> {
  const outcomes: Array<[string, string | undefined]> = [];
  const results = Worker.runReplayHistories(options, histories.map(([name, history]) => ({ workflowId: name, history })));
  for await (const result of results) outcomes.push([result.workflowId, result.error?.message]);
  return outcomes;
}

test('every one replays on the current workflow code, without a nondeterminism error', async () => {
  expect(await replayAll(testWorkflows())).toEqual(histories.map(([name]) => [name, undefined]));
}, 120_000);

test('every one replays with the tracing interceptors on, as a worker with OTEL_EXPORTER_OTLP_ENDPOINT set runs them', async () => {
  const exporter = new InMemorySpanExporter();
  const tracing = temporalWorkerTracing({ resource: new Resource({ 'service.name': 'convene-worker' }), spanProcessor: new SimpleSpanProcessor(exporter) });
  expect(tracing.interceptors?.workflowModules).toHaveLength(1);
  const { workflowModules } = tracing.interceptors!;
  expect(await replayAll({ workflowsPath: WORKFLOWS_PATH, interceptors: { workflowModules }, sinks: tracing.sinks })).toEqual(
    histories.map(([name]) => [name, undefined]),
  );
  // Replay exports nothing: the spans of a run were exported when it ran.
  expect(exporter.getFinishedSpans()).toEqual([]);
}, 120_000);
