import { PutObjectCommand } from '@aws-sdk/client-s3';
import { createTenant } from '../helpers/fixtures.ts';
import { listRunsUntil } from '../helpers/history-scan.ts';
import { createRecordingStack, type RecordingStack } from '../helpers/recording-stack.ts';
import { createTestApp } from '../helpers/test-app.ts';

// DELETE /tenants/{id}: rows go at once; stored files go durably, through the tenant-purge workflow run by a real
// worker process.
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
  const result = await stack.temporal.workflow.getHandle(`tenant-purge-${doomed.id}`).result();
  expect(result).toEqual({ objectsDeleted: 2 });
  // DECISIONS §13: the operator finds it by the tenant's id, and it says what it does.
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

test('without Temporal the delete answers 503 and deletes nothing', async () => {
  const offline = await createTestApp({ TEMPORAL_ADDRESS: '127.0.0.1:9' });
  try {
    const tenant = await createTenant(offline);
    const res = await offline.request.delete(`/api/v1/tenants/${tenant.id}`).set(tenant.auth);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.headers['retry-after']).toBe('30');
    expect((await offline.request.get(`/api/v1/tenants/${tenant.id}`).set(tenant.auth)).status).toBe(200);
  } finally {
    await offline.close();
  }
});
