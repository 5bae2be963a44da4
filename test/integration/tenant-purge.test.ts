import { PutObjectCommand } from '@aws-sdk/client-s3';
import { RoomSchema } from '../../src/modules/rooms/room.entity.ts';
import { TenantSchema } from '../../src/modules/tenants/tenant.entity.ts';
import { createRoom, createTenant } from '../helpers/fixtures.ts';
import { handoverRows, startRelay, startedRun } from '../helpers/handovers.ts';
import { listRunsUntil } from '../helpers/history-scan.ts';
import { createRecordingStack, type RecordingStack } from '../helpers/recording-stack.ts';
import { createTestApp } from '../helpers/test-app.ts';

// DELETE /tenants/{id}: rows go at once; stored files go durably, through the tenant-purge workflow run by a real
// worker process, handed over in the deleting transaction (docs/decisions.md §15).
let stack: RecordingStack;
beforeAll(async () => {
  stack = await createRecordingStack();
  await stack.startWorker();
});
afterAll(async () => {
  await stack.close();
});

test("deleting a tenant purges its stored files in both buckets, and no one else's", async () => {
  const { t } = stack;
  const doomed = await createTenant(t, { name: 'Doomed' });
  const kept = await createTenant(t, { name: 'Kept' });
  const { bucket, archiveBucket } = t.config.s3;
  const put = (Bucket: string, Key: string) => t.services.s3.send(new PutObjectCommand({ Bucket, Key, Body: 'RIFF....WAVE' }));
  await put(bucket, `recordings/${doomed.id}/a.wav`);
  await put(archiveBucket, `recordings/${doomed.id}/b.wav`);
  await put(bucket, `recordings/${kept.id}/c.wav`);

  const res = await t.request.delete(`/api/v1/tenants/${doomed.id}`).set(doomed.auth);
  expect(res.status).toBe(200);
  const result = await (await startedRun(stack.temporal, `tenant-purge-${doomed.id}`)).result();
  expect(result).toEqual({ objectsDeleted: 2 });
  // docs/decisions.md §13: the operator finds it by the tenant's id, and it says what it does.
  const runs = await listRunsUntil(stack.temporal, `ConveneTenantId = "${doomed.id}"`, (found) => found.length > 0);
  expect(runs.map((r) => r.workflowId)).toEqual([`tenant-purge-${doomed.id}`]);
  const started = (await stack.temporal.workflow.getHandle(`tenant-purge-${doomed.id}`).fetchHistory()).events![0];
  expect(JSON.parse(Buffer.from(started.userMetadata!.summary!.data!).toString('utf8'))).toBe(
    `delete the stored files of deleted tenant ${doomed.id}`,
  );

  expect(await t.services.store.list(bucket, `recordings/${doomed.id}/`)).toEqual([]);
  expect(await t.services.store.list(archiveBucket, `recordings/${doomed.id}/`)).toEqual([]);
  expect(await t.services.store.list(bucket, `recordings/${kept.id}/`)).toEqual([`recordings/${kept.id}/c.wav`]);
});

test('without Temporal the delete still commits: rows gone, purge recorded, started once Temporal is reachable', async () => {
  // The offline app's own relay cannot reach Temporal; a relay that can (another process's) starts what it recorded.
  const offline = await createTestApp({ TEMPORAL_ADDRESS: '127.0.0.1:9', TEMPORAL_TASK_QUEUE: stack.taskQueue });
  try {
    const tenant = await createTenant(offline);
    await createRoom(offline, tenant);
    const key = `recordings/${tenant.id}/x.wav`;
    await offline.services.s3.send(new PutObjectCommand({ Bucket: offline.config.s3.bucket, Key: key, Body: 'RIFF....WAVE' }));
    const res = await offline.request.delete(`/api/v1/tenants/${tenant.id}`).set(tenant.auth);
    expect(res.status).toBe(200);
    const em = offline.services.orm.em.fork();
    expect(await em.count(TenantSchema, { id: tenant.id })).toBe(0);
    expect(await em.count(RoomSchema, { tenant: tenant.id })).toBe(0);
    const workflowId = `tenant-purge-${tenant.id}`;
    expect(await handoverRows(offline.services.orm, workflowId)).toEqual([expect.objectContaining({ workflow_type: 'tenantPurgeWorkflow', started: false })]);

    const relay = startRelay(offline.services.orm, stack.temporal, stack.taskQueue);
    try {
      expect(await (await startedRun(stack.temporal, workflowId)).result()).toEqual({ objectsDeleted: 1 });
    } finally {
      await relay.close();
    }
    expect(await offline.services.store.list(offline.config.s3.bucket, `recordings/${tenant.id}/`)).toEqual([]);
    expect(await handoverRows(offline.services.orm, workflowId)).toEqual([expect.objectContaining({ started: true })]);
    const runs = await listRunsUntil(stack.temporal, `WorkflowId = "${workflowId}"`, (found) => found.length > 0);
    expect(runs).toHaveLength(1);
  } finally {
    await offline.close();
  }
}, 120_000);
