// What both SDK tests need: the recording stack (app on a real port, development media server, a real worker) with
// the `openai` transcription provider pointed at the development media server, a real webhook receiver for the
// tenant's post-meeting webhook (test/helpers/webhook-receiver.ts), and the checks a flow's result must pass.
import { freePort } from '../helpers/free-port.ts';
import { createRecordingStack, type RecordingStack } from '../helpers/recording-stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import type { FlowResult } from './flow-types.ts';

/** The secret the flows give the tenant's post-meeting webhook; the receiver verifies signatures with it. */
export const SDK_WEBHOOK_SECRET = 'sdk-webhook-secret-0123456789';

export interface SdkStack {
  stack: RecordingStack;
  receiver: WebhookReceiver;
  webhookUrl: string;
  close(): Promise<void>;
}

export async function createSdkStack(): Promise<SdkStack> {
  const receiver = await startWebhookReceiver(SDK_WEBHOOK_SECRET);
  // The media server's port is chosen first so the worker's OPENAI_BASE_URL can name it (as the pipeline test does).
  const mediaPort = await freePort();
  const stack = await createRecordingStack({
    media: { port: mediaPort, recordingSeconds: 30 },
    env: { OPENAI_BASE_URL: `http://127.0.0.1:${mediaPort}/v1` },
  });
  await stack.startWorker();
  return {
    stack,
    receiver,
    webhookUrl: receiver.url,
    async close() {
      await stack.close();
      await receiver.close();
    },
  };
}

/** The checks every SDK flow passes: what the client parsed agrees with the server's state and the provider's file. */
export async function expectFlowSucceeded(result: FlowResult, { stack, receiver }: SdkStack): Promise<void> {
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

  // Both transcripts are the meeting the provider "heard": the development media server knows its script.
  const script = stack.media.transcriptFor(upstream.id);
  expect(script.segments.length).toBeGreaterThan(0);
  expect(result.postMeetingTranscript).toMatchObject({ status: 'completed', segments: script.segments.length });
  expect(result.listedPostMeetingTranscripts).toEqual([{ id: result.postMeetingTranscript.id, recordingId: result.recordingId, status: 'completed' }]);
  expect(result.queuedTranscript).toEqual({
    id: expect.not.stringMatching(`^${result.postMeetingTranscript.id}$`),
    queuedStatus: 'pending',
    recordingId: result.recordingId,
    status: 'completed',
    segments: script.segments.length,
  });
  expect(result.providers).toEqual({ ids: ['openai'], defaultProvider: 'openai' });

  // The delivery log agrees with what the receiver got: one signed webhook about the recording, then its re-send.
  expect(result.delivery).toEqual({
    id: expect.any(String),
    listedRecordingId: result.recordingId,
    status: 'succeeded',
    attemptCount: 1,
    attempts: [{ attempt: 1, status: 'succeeded', responseStatusCode: 200 }],
  });
  expect(result.resent).toEqual({ id: expect.any(String), resentFrom: result.delivery.id, queuedStatus: 'pending', status: 'succeeded' });
  expect(result.resent.id).not.toBe(result.delivery.id);
  expect(result.testEvent).toEqual({ id: expect.any(String), event: 'webhook.test', queuedStatus: 'pending', status: 'succeeded', attemptCount: 1 });
  const [test, ...hooks] = await receiver.waitFor(3);
  expect(test.headers['x-convene-delivery']).toBe(result.testEvent.id);
  expect(test.headers['x-convene-event']).toBe('webhook.test');
  expect(test.signatureValid).toBe(true);
  expect(test.json).toEqual({ event: 'webhook.test', timestamp: expect.any(String), tenant: { id: result.tenantId } });
  expect(hooks.map((hook) => hook.headers['x-convene-delivery'])).toEqual([result.delivery.id, result.resent.id]);
  for (const hook of hooks) {
    expect(hook.signatureValid).toBe(true);
    expect(hook.schemaErrors).toBeNull();
    expect(hook.headers['x-convene-event']).toBe('meeting.recording_ready');
    expect(hook.json.meeting.id).toBe(result.roomId);
    expect(hook.json.recording.id).toBe(result.recordingId);
  }

  expect(result.rotatedKeyWorks).toBe(true);
  expect(result.oldKeyStatus).toBe(401);
  expect(result.deletedStatus).toBe(401);
  const rows = await stack.t.services.orm.em.fork().getConnection().execute('select id from tenants where id = ?', [result.tenantId]);
  expect(rows).toEqual([]);
}
