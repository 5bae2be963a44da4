// The example receiver (examples/webhook-receiver.ts, run as its own process) against Convene's own sender
// (sendWebhook, signedHeaders): one signing function on both sides, and the receiver's rules hold.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { signedHeaders, sendWebhook } from '../../../src/modules/deliveries/delivery-sender.ts';

const SECRET = 'whsec_example_receiver_secret_0123456789';
let child: ChildProcess;
let url: string;
let output = '';

beforeAll(async () => {
  child = spawn(process.execPath, ['examples/webhook-receiver.ts', '--port', '0', '--secret', SECRET], { stdio: ['ignore', 'pipe', 'pipe'] });
  url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`example receiver exited with ${code}:\n${output}`)));
  });
}, 30_000);

/** The receiver's stdout reaches this process a moment after its answer. */
async function waitForOutput(text: string): Promise<void> {
  for (let i = 0; i < 40 && !output.includes(text); i++) await new Promise((r) => setTimeout(r, 50));
  expect(output).toContain(text);
}

/**
 * The receiver prints a delivery as two writes (its line, then the payload), which may reach this process apart: the
 * output is settled once the payload's closing brace, at the start of a line, follows `text`.
 */
async function waitForDelivery(text: string): Promise<void> {
  await waitForOutput(text);
  const printed = () => output.slice(output.indexOf(text)).includes('\n}\n');
  for (let i = 0; i < 40 && !printed(); i++) await new Promise((r) => setTimeout(r, 50));
  expect(printed()).toBe(true);
}

afterAll(() => {
  child?.kill('SIGTERM');
});

test('the example is ready to copy: it imports nothing but Node built-ins', () => {
  const source = readFileSync(new URL('../../../examples/webhook-receiver.ts', import.meta.url), 'utf8');
  const imports = [...source.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
  expect(imports.length).toBeGreaterThan(0);
  for (const name of imports) expect(name).toMatch(/^node:/);
});

const body = JSON.stringify({
  event: 'meeting.recording_ready',
  timestamp: new Date().toISOString(),
  meeting: { id: '0192f0a4-7c1e-7b3a-9d2e-4f5a6b7c8d9e', name: 'demo', started_at: new Date().toISOString(), ended_at: null, duration_seconds: 6, participant_count: 2 },
});
const request = { url: '', secret: SECRET, event: 'meeting.recording_ready', body, timeoutMs: 5000, production: false };

test('a delivery signed by Convene is accepted once, and a repeat of it is recognised as a duplicate', async () => {
  const first = await sendWebhook({ ...request, url, deliveryId: 'delivery-1' });
  expect(first).toMatchObject({ kind: 'succeeded', statusCode: 200, responseBody: 'ok' });
  const again = await sendWebhook({ ...request, url, deliveryId: 'delivery-1' });
  expect(again).toMatchObject({ kind: 'succeeded', statusCode: 200, responseBody: 'duplicate' });
  await waitForOutput('delivery delivery-1 meeting.recording_ready: signature valid');
});

test('a wrong secret, a changed body or a timestamp more than 300 s old is refused with 401', async () => {
  const wrongSecret = await sendWebhook({ ...request, url, secret: 'whsec_someone_else', deliveryId: 'delivery-2' });
  expect(wrongSecret).toMatchObject({ kind: 'final', statusCode: 401 });

  const post = (headers: Record<string, string>, payload: string) => fetch(url, { method: 'POST', headers, body: payload });
  const headers = signedHeaders({ secret: SECRET, deliveryId: 'delivery-3', event: 'meeting.recording_ready', body });
  const tampered = body.replace('"demo"', '"dem0"');
  expect((await post({ ...headers, 'Content-Length': String(Buffer.byteLength(tampered)) }, tampered)).status).toBe(401);

  const stale = signedHeaders({ secret: SECRET, deliveryId: 'delivery-4', event: 'meeting.recording_ready', body }, Math.floor(Date.now() / 1000) - 301);
  expect((await post(stale, body)).status).toBe(401);
  const recent = signedHeaders({ secret: SECRET, deliveryId: 'delivery-5', event: 'meeting.recording_ready', body }, Math.floor(Date.now() / 1000) - 200);
  expect((await post(recent, body)).status).toBe(200);
});

test('in production the sender refuses a loopback or plain-http receiver before connecting, for good', async () => {
  const port = new URL(url).port;
  await waitForDelivery('delivery delivery-5'); // the receiver's output about the earlier tests has arrived, payload too
  const before = output.length;
  const loopback = await sendWebhook({ ...request, url: `https://127.0.0.1:${port}/hook`, deliveryId: 'delivery-6', production: true });
  expect(loopback).toMatchObject({ kind: 'final', statusCode: null });
  expect((loopback as { error: string }).error).toMatch(/^Refused by the SSRF guard: .*loopback/);
  const plain = await sendWebhook({ ...request, url, deliveryId: 'delivery-7', production: true });
  expect((plain as { error: string }).error).toBe('Refused by the SSRF guard: URL must use https in production');
  // The receiver logs every request it gets (accepted or refused): it got none.
  await new Promise((r) => setTimeout(r, 200));
  expect(output.slice(before)).toBe('');
});

test('a webhook.test event is verified like any delivery and reported as the receiver being set up', async () => {
  const testBody = JSON.stringify({ event: 'webhook.test', timestamp: new Date().toISOString(), tenant: { id: '0192f0a0-0a1b-7c2d-8e3f-4a5b6c7d8e9f' } });
  const sent = await sendWebhook({ ...request, url, event: 'webhook.test', body: testBody, deliveryId: 'delivery-8' });
  expect(sent).toMatchObject({ kind: 'succeeded', statusCode: 200 });
  const forged = await sendWebhook({ ...request, url, event: 'webhook.test', body: testBody, secret: 'whsec_someone_else', deliveryId: 'delivery-9' });
  expect(forged).toMatchObject({ kind: 'final', statusCode: 401 });
  await waitForOutput('test event delivery-8 for tenant 0192f0a0-0a1b-7c2d-8e3f-4a5b6c7d8e9f: signature valid, this receiver is set up');
});
