import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDevMediaServer, type DevMediaServer } from '../../../dev/media-server/server.ts';

const SECRET = 'notification-test-secret';

interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

/** A receiver like the API's incoming webhook: records every request, answers with the next planned status. */
async function startReceiver(plannedStatuses: number[] = []) {
  const received: Received[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
    res.writeHead(plannedStatuses.shift() ?? 202, { 'content-type': 'application/json' });
    res.end('{"received":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v1/webhooks/upstream/recording-ready`,
    received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

function expectedSignature(raw: Buffer): string {
  return createHmac('sha256', SECRET).update(raw).digest('hex');
}

async function startAndStop(media: DevMediaServer, meetingId: string): Promise<string> {
  const started = await fetch(`${media.url}/v1/recordings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ meeting_id: meetingId, duration_seconds: 4 }),
  });
  const { id } = (await started.json()) as { id: string };
  await fetch(`${media.url}/v1/recordings/${id}/stop`, { method: 'POST' });
  return id;
}

test('when processing ends, the receiver gets one signed recording.ready matching the recording', async () => {
  const receiver = await startReceiver();
  const media = await startDevMediaServer({ webhookSecret: SECRET, notifyUrl: receiver.url, processingDelayMs: 20 });
  try {
    const id = await startAndStop(media, 'room-notify-1');
    await media.settled();

    expect(receiver.received).toHaveLength(1);
    const [{ headers, raw }] = receiver.received;
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-upstream-signature']).toBe(expectedSignature(raw));

    const body = JSON.parse(raw.toString('utf8'));
    const recording = media.getRecording(id)!;
    expect(body).toEqual({
      type: 'recording.ready',
      recording_id: id,
      meeting_id: 'room-notify-1',
      url: expect.stringContaining(`/media/${id}.wav?`),
      duration_seconds: 4,
      size_bytes: recording.size_bytes,
      content_type: 'audio/wav',
    });

    const media_ = await fetch(body.url);
    expect(media_.status).toBe(200);
    expect((await media_.arrayBuffer()).byteLength).toBe(body.size_bytes);
    expect(media.notifications).toEqual([expect.objectContaining({ recordingId: id, attempt: 1, status: 202 })]);
  } finally {
    await media.stop();
    await receiver.close();
  }
});

test('a refused or unreachable notification is retried until a receiver accepts it', async () => {
  const receiver = await startReceiver([500, 401]);
  const media = await startDevMediaServer({
    webhookSecret: SECRET,
    notifyUrl: receiver.url,
    processingDelayMs: 0,
    notifyRetryDelaysMs: [0, 10, 10, 10],
  });
  try {
    const id = await startAndStop(media, 'room-notify-2');
    await media.settled();
    expect(media.notifications.map((attempt) => attempt.status)).toEqual([500, 401, 202]);
    expect(receiver.received).toHaveLength(3);
    // Every attempt carries the same body and signature.
    expect(new Set(receiver.received.map((r) => r.raw.toString()))).toEqual(new Set([receiver.received[0].raw.toString()]));
    expect(JSON.parse(receiver.received[2].raw.toString()).recording_id).toBe(id);
  } finally {
    await media.stop();
    await receiver.close();
  }

  const gone = await startReceiver();
  await gone.close();
  const lonely = await startDevMediaServer({
    webhookSecret: SECRET,
    notifyUrl: gone.url,
    processingDelayMs: 0,
    notifyRetryDelaysMs: [0, 10, 10],
  });
  try {
    await startAndStop(lonely, 'room-notify-3');
    await lonely.settled();
    expect(lonely.notifications).toHaveLength(3);
    expect(lonely.notifications.every((attempt) => attempt.status === undefined && attempt.error)).toBe(true);
  } finally {
    await lonely.stop();
  }
});

test('with autoNotify off nothing is sent, and a notification can be sent by hand', async () => {
  const receiver = await startReceiver();
  const media = await startDevMediaServer({ webhookSecret: SECRET, notifyUrl: receiver.url, processingDelayMs: 0, autoNotify: false });
  try {
    const id = await startAndStop(media, 'room-notify-4');
    await media.settled();
    expect(media.getRecording(id)!.status).toBe('ready');
    expect(receiver.received).toHaveLength(0);

    const { body, signature } = media.notificationFor(id);
    expect(signature).toBe(expectedSignature(Buffer.from(body)));
    await expect(media.sendNotification(id)).resolves.toBe(true);
    expect(receiver.received.map((r) => r.raw.toString())).toEqual([body]);
    expect(receiver.received[0].headers['x-upstream-signature']).toBe(signature);
  } finally {
    await media.stop();
    await receiver.close();
  }
});

test('a recording whose processing fails ends failed and is not announced', async () => {
  const receiver = await startReceiver();
  const media = await startDevMediaServer({ webhookSecret: SECRET, notifyUrl: receiver.url, processingDelayMs: 0 });
  try {
    const started = await fetch(`${media.url}/v1/recordings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ meeting_id: 'room-notify-5', fail_processing: true }),
    });
    const { id } = (await started.json()) as { id: string };
    await fetch(`${media.url}/v1/recordings/${id}/stop`, { method: 'POST' });
    await media.settled();
    expect(media.getRecording(id)).toMatchObject({ status: 'failed', url: null });
    expect(receiver.received).toHaveLength(0);
  } finally {
    await media.stop();
    await receiver.close();
  }
});
