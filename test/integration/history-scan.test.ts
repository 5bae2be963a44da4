// The history scan (test/helpers/history-scan.ts) is what the "no secret in history" tests rely on (docs/decisions.md §13), so
// it is shown to find one: a throwaway run on the harness's Temporal dev server whose input and summary carry a signed
// link and a known secret. No worker polls its task queue; the start event alone holds both.
import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { searchAttributesFor } from '../../workflows/shared.ts';
import { listRunsUntil, scanHistories } from '../helpers/history-scan.ts';

let connection: Connection;
let client: Client;

beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  client = new Client({ connection });
});
afterAll(async () => {
  await connection?.close();
});

test('a secret and a signed link in a run’s input and summary are both reported, with where they are', async () => {
  const tenantId = randomUUID();
  const secret = `known-secret-${randomUUID()}`;
  const link = `http://127.0.0.1:4010/media/up-1.wav?expires=1798020789&sig=abc`;
  const handle = await client.workflow.start('historyScanProbe', {
    taskQueue: `history-scan-${randomUUID()}`,
    workflowId: `history-scan-probe-${tenantId}`,
    args: [{ link, secret }],
    staticSummary: `fetch ${link} with ${secret}`,
    typedSearchAttributes: searchAttributesFor({ tenantId }),
  });
  try {
    const query = `ConveneTenantId = "${tenantId}"`;
    await listRunsUntil(client, query, (runs) => runs.length === 1);
    const scan = await scanHistories(client, query, [secret]);

    expect(scan.runs.map((run) => run.workflowId)).toEqual([handle.workflowId]);
    // All in the run's first event, WorkflowExecutionStarted.
    const found = scan.findings.map(({ eventId, field, match }) => ({ eventId, field, match }));
    const started = '1';
    const input = 'workflowExecutionStartedEventAttributes.input.payloads.0.data';
    const summary = 'userMetadata.summary.data';
    expect(found).toEqual(
      expect.arrayContaining([
        { eventId: started, field: input, match: `secret ${secret.slice(0, 4)}…(${secret.length})` },
        { eventId: started, field: input, match: 'pattern /sig=/i' },
        { eventId: started, field: summary, match: `secret ${secret.slice(0, 4)}…(${secret.length})` },
        { eventId: started, field: summary, match: 'pattern /sig=/i' },
      ]),
    );
    // The report masks the secret it found: the test output does not leak it either.
    expect(JSON.stringify(scan.findings)).not.toContain(secret);
  } finally {
    await handle.terminate('history scan test done');
  }
});
