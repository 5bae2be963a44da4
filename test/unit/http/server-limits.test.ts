// The HTTP server's limits from config (src/http/server.ts): a client that trickles its headers is answered 408 and
// disconnected; more header lines than maxHeadersCount are refused; a client that stops reading its response is
// disconnected after the write timeout (docs/decisions.md §16).
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createHttpServer } from '../../../src/http/server.ts';

let server: Server;
let port: number;
const seen: Array<Record<string, unknown>> = [];
/** How each /big response ended: taken whole (`finished`) or dropped. */
const bigEnds: Array<'finished' | 'dropped'> = [];
const BIG = 64 * 1024 * 1024; // far more than the loopback's socket buffers hold

beforeAll(async () => {
  server = createHttpServer(
    (req, res) => {
      if (req.url?.startsWith('/big')) {
        const size = req.url === '/big/small' ? 1024 * 1024 : BIG;
        res.on('close', () => bigEnds.push(res.writableFinished ? 'finished' : 'dropped'));
        res.end(Buffer.alloc(size, 'x'));
        return;
      }
      seen.push(req.headers);
      res.end('ok');
    },
    { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 1000, writeTimeoutMs: 1500, maxHeadersCount: 20 },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Writes `text`, then waits (without a clock) for the server to close the connection; returns what it answered. */
function exchange(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.write(text);
  });
}

test('a client that never finishes its headers gets 408 and is disconnected', async () => {
  const answer = await exchange('GET /slow HTTP/1.1\r\nHost: x\r\nX-Trickle: a');
  expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  expect(seen).toHaveLength(0);
});

test('a complete request is served; one with more header lines than maxHeadersCount is refused 400', async () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `X-H${i}: ${i}\r\n`).join('');
  const ok = await exchange(`GET /ok HTTP/1.1\r\nHost: x\r\n${lines(10)}Connection: close\r\n\r\n`);
  expect(ok).toMatch(/^HTTP\/1\.1 200 /);
  const crowded = await exchange(`GET /ok HTTP/1.1\r\nHost: x\r\n${lines(40)}Connection: close\r\n\r\n`);
  expect(crowded).toMatch(/^HTTP\/1\.1 400 /);
  expect(crowded).toContain('Request headers are too large');
  expect(seen).toHaveLength(1);
});

test('a client that stops reading its response is disconnected after the write timeout; a reading one gets it whole', async () => {
  // The reader takes 1 MiB and sees the connection end normally.
  const whole = await exchange('GET /big/small HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  expect(whole.length).toBeGreaterThan(1024 * 1024);
  expect(bigEnds).toEqual(['finished']);

  // The stalled client asks for 64 MiB and never reads: the server drops the response and closes the connection.
  const stalled = connect(port, '127.0.0.1');
  stalled.pause();
  const closed = new Promise<void>((resolve) => stalled.once('close', () => resolve()));
  stalled.on('error', () => {}); // the reset of a dropped connection is the expected outcome
  stalled.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
  await waitUntil(() => bigEnds.length === 2);
  expect(bigEnds).toEqual(['finished', 'dropped']);
  stalled.resume(); // drain what the kernel buffered, so the client sees the end
  await closed;
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
}
