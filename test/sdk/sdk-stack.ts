// What both SDK tests need: the recording stack (app on a real port, development media server, a real worker), a
// webhook receiver for the tenant's post-meeting webhook, and the checks a flow's result must pass.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRecordingStack, type RecordingStack } from '../helpers/recording-stack.ts';
import type { FlowResult } from './flow-types.ts';

export interface SdkStack {
  stack: RecordingStack;
  webhookUrl: string;
  /** Bodies the webhook receiver got. */
  received: string[];
  close(): Promise<void>;
}

export async function createSdkStack(): Promise<SdkStack> {
  const stack = await createRecordingStack();
  await stack.startWorker();
  const received: string[] = [];
  const receiver: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  return {
    stack,
    webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/convene`,
    received,
    async close() {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
      await stack.close();
    },
  };
}

/** The checks every SDK flow passes: what the client parsed agrees with the server's state and the provider's file. */
export async function expectFlowSucceeded(result: FlowResult, { stack, received }: SdkStack): Promise<void> {
  expect(result.updated).toEqual({ name: expect.stringMatching(/renamed$/), maxConcurrentRooms: 20 });
  expect(result.bulkResults).toEqual([{ success: true }, { success: true }]);
  // The host plus the two bulk participants, listed back with the ids the client was given.
  expect(new Set(result.participantIds).size).toBe(3);

  expect(result.pendingDownload).toMatchObject({ status: 'recording', message: expect.any(String) });
  expect(result.pendingDownload.downloadUrl).toBeUndefined();
  const upstream = stack.media.listRecordings(result.roomId)[0]!;
  expect(result.download).toMatchObject({
    status: 'ready',
    downloadUrl: expect.stringContaining('X-Amz-Expires=3600'),
    fileSize: upstream.size_bytes,
    duration: upstream.duration_seconds,
    provider: 's3',
  });
  expect(result.downloadedBytes).toBe(upstream.size_bytes);

  // Transcripts and the delivery log are built in other branches (501 here, and the flow logs SKIPPED): once they
  // answer, these checks apply. The lead removes the escape at merge.
  if (result.transcriptStatus !== 'not implemented') expect(result.transcriptStatus).toBe('completed');
  if (result.resentDeliveryId !== 'not implemented') {
    expect(result.resentDeliveryId).toMatch(/^[0-9a-f-]{36}$/);
    expect(received.some((body) => body.includes(result.recordingId))).toBe(true);
  }

  expect(result.rotatedKeyWorks).toBe(true);
  expect(result.oldKeyStatus).toBe(401);
  expect(result.deletedStatus).toBe(401);
  const rows = await stack.t.services.orm.em.fork().getConnection().execute('select id from tenants where id = ?', [result.tenantId]);
  expect(rows).toEqual([]);
}
