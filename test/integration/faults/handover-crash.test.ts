// Fault test (docs/decisions.md §15): a process dies between the commit of a change and the start of the workflow
// it implies. A real API process runs with the fault dev/faults/exit-after-handover-commit.ts loaded first: it exits right
// after creating a room commits, before its relay has started the room's empty-room timer (the client never gets an
// answer). Nothing is lost: the room is stored with its recorded hand-over, and the next API process's relay starts
// the timer, once.
import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { emptyRoomWorkflowId } from '../../../workflows/shared.ts';
import { createTestDatabase } from '../../harness/database.ts';
import { startApiProcess, type ApiProcess } from '../../helpers/api-process.ts';
import { startedRun } from '../../helpers/handovers.ts';
import { listRunsUntil } from '../../helpers/history-scan.ts';

const ADMIN_KEY = 'test-admin-key-handover-crash';
const TASK_QUEUE = `handover-crash-${randomUUID()}`; // polled by nobody: the timer is started, not run
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let connection: Connection;
const apis: ApiProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
}, 60_000);

afterAll(async () => {
  await Promise.all(apis.map((a) => a.stop()));
  await connection?.close();
  await db?.drop();
});

test('killed between commit and start: the room is stored and its timer is started by the next process, once', async () => {
  const env = { ADMIN_API_KEY: ADMIN_KEY, TEMPORAL_TASK_QUEUE: TASK_QUEUE };
  const fault = `--import=./dev/faults/exit-after-handover-commit.ts`; // resolved from the process's folder, the project root
  const doomed = await startApiProcess(db.url, { ...env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${fault}`.trim() }, 'doomed API process');
  apis.push(doomed);
  const tenant = (await doomed.call('POST', '/api/v1/tenants', { 'X-Admin-Key': ADMIN_KEY }, { name: 'Crash' })).body.data;
  const answered = await doomed.call('POST', '/api/v1/rooms', { 'X-API-Key': tenant.api_key }, { name: 'never answered' }).then(
    () => true,
    () => false,
  );
  expect(answered).toBe(false); // the process died before answering
  await doomed.exited();
  expect(doomed.proc.exitCode).toBe(86);

  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  let roomId: string;
  try {
    const rooms = (await client.query<{ id: string }>('select id from rooms where tenant_id = $1', [tenant.id])).rows;
    expect(rooms).toHaveLength(1); // committed
    roomId = rooms[0].id;
    const pending = (await client.query('select workflow_id from workflow_handovers where started_at is null')).rows;
    expect(pending).toEqual([{ workflow_id: emptyRoomWorkflowId(roomId) }]);
  } finally {
    await client.end();
  }

  // The next process (a restart, or any other instance) relays what the dead one recorded.
  apis.push(await startApiProcess(db.url, env, 'next API process'));
  const temporal = new Client({ connection });
  const run = await startedRun(temporal, emptyRoomWorkflowId(roomId));
  expect((await run.describe()).taskQueue).toBe(TASK_QUEUE);
  expect(await listRunsUntil(temporal, `WorkflowId = "${emptyRoomWorkflowId(roomId)}"`, (found) => found.length > 0)).toHaveLength(1);
  await run.terminate('test over');
}, 120_000);
