// Queue Transcription with Temporal unreachable (docs/decisions.md §15): the `pending` transcript and its workflow's hand-over
// commit together and the request answers 202; nothing is lost: once a relay reaches Temporal (here a second one, as
// another process would run) the transcript's run is started, exactly once, though two relays had it to do.
import { Client, Connection } from '@temporalio/client';
import { v7 as uuidv7 } from 'uuid';
import { RecordingSchema } from '../../../src/modules/recordings/recording.entity.ts';
import { TranscriptSchema } from '../../../src/modules/transcripts/transcript.entity.ts';
import { transcriptionWorkflowId } from '../../../workflows/shared.ts';
import { createRoom, createTenant } from '../../helpers/fixtures.ts';
import { handoverRows, startRelay, startedRun } from '../../helpers/handovers.ts';
import { listRunsUntil } from '../../helpers/history-scan.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';

let t: TestApp;
let connection: Connection;
let temporal: Client;
const TASK_QUEUE = `transcripts-temporal-down-${uuidv7()}`; // polled by nobody: the run is started, not run

beforeAll(async () => {
  t = await createTestApp({ TEMPORAL_ADDRESS: '127.0.0.1:1', TEMPORAL_TASK_QUEUE: TASK_QUEUE, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  temporal = new Client({ connection });
});

afterAll(async () => {
  await t?.close();
  await connection?.close();
});

test('Temporal unreachable: 202 with a pending transcript, recorded; started exactly once when Temporal is reachable', async () => {
  const tenant = await createTenant(t);
  const room = await createRoom(t, tenant);
  const em = t.services.orm.em.fork();
  const recording = em.create(RecordingSchema, {
    id: uuidv7(),
    tenant: tenant.id,
    room: room.id,
    status: 'ready',
    storageTier: 'primary',
    storageBucket: t.services.store.bucket,
    objectKey: `recordings/${tenant.id}/x.wav`,
    contentType: 'audio/wav',
    sizeBytes: 1000,
  });
  await em.flush();

  const answer = await t.request.post(`/api/v1/recordings/${recording.id}/transcribe`).set(tenant.auth).send({ room_id: room.id });
  expect(answer.status).toBe(202);
  const transcriptId = answer.body.transcript_id as string;
  expect(await t.services.orm.em.fork().count(TranscriptSchema, { recording: recording.id, status: 'pending' })).toBe(1);
  const workflowId = transcriptionWorkflowId(transcriptId);
  expect(await handoverRows(t.services.orm, workflowId)).toEqual([expect.objectContaining({ workflow_type: 'transcriptionWorkflow', started: false })]);

  const relays = [startRelay(t.services.orm, temporal, TASK_QUEUE), startRelay(t.services.orm, temporal, TASK_QUEUE)];
  try {
    const run = await startedRun(temporal, workflowId);
    expect((await run.describe()).taskQueue).toBe(TASK_QUEUE);
  } finally {
    await Promise.all(relays.map((r) => r.close()));
  }
  const runs = await listRunsUntil(temporal, `WorkflowId = "${workflowId}"`, (found) => found.length > 0);
  expect(runs).toHaveLength(1);
  const rows = await handoverRows(t.services.orm, workflowId);
  expect(rows).toEqual([expect.objectContaining({ started: true })]);
  await temporal.workflow.getHandle(workflowId).terminate('test over');
}, 120_000);
