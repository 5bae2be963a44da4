// A provider request sent on a kept-alive connection that the server closes at that moment (src/providers/provider-http.ts):
// sent once more on a new connection when its body is still at hand, refused as a retryable connection failure when
// the body was a stream. The server here is a real TCP server that answers the first request of a connection with
// keep-alive and resets the connection when a second request arrives on it, the way an idle timeout meets a reuse (or,
// to see that a request we gave up on ourselves is not sent again, holds the second request unanswered).
import { createServer, type Server, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { send } from '../../../src/providers/provider-http.ts';
import { ProviderError } from '../../../src/providers/types.ts';

interface ResettingServer {
  url: string;
  /** Requests answered, connections reset on their second request, and requests received (answered or not). */
  answered: number;
  reset: number;
  received: number;
  close(): Promise<void>;
}

async function startResettingServer(secondRequest: 'reset' | 'hold' = 'reset'): Promise<ResettingServer> {
  const sockets = new Set<Socket>();
  const state = { answered: 0, reset: 0, received: 0 };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let requests = 0;
    let pending = '';
    socket.on('data', (chunk) => {
      pending += chunk.toString('latin1');
      const headEnd = pending.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(pending.slice(0, headEnd))?.[1] ?? 0);
      if (pending.length < headEnd + 4 + length) return;
      pending = '';
      requests += 1;
      state.received += 1;
      if (requests > 1 && secondRequest === 'hold') return;
      if (requests > 1) {
        state.reset += 1;
        socket.resetAndDestroy();
        return;
      }
      state.answered += 1;
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: keep-alive\r\n\r\n{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    get answered() {
      return state.answered;
    },
    get reset() {
      return state.reset;
    },
    get received() {
      return state.received;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let server: ResettingServer;
beforeEach(async () => {
  server = await startResettingServer();
});
afterEach(async () => {
  await server.close();
});

const request = (body: Buffer | Readable, timeoutMs = 5000) => ({
  provider: 'openai-compatible',
  url: server.url,
  headers: { 'content-type': 'application/json', 'content-length': 2 },
  body,
  timeoutMs,
});

test('a request whose kept-alive connection is reset as it goes out is sent again on a new connection', async () => {
  expect((await send(request(Buffer.from('{}')))).status).toBe(200);
  const second = await send(request(Buffer.from('{}')));
  expect(second).toMatchObject({ status: 200, body: '{"ok":true}' });
  // The second request met the reset on the kept connection, then was answered on a connection of its own.
  expect({ answered: server.answered, reset: server.reset }).toEqual({ answered: 2, reset: 1 });
});

test('a streamed body is not sent again: the reset is a retryable connection failure', async () => {
  expect((await send(request(Buffer.from('{}')))).status).toBe(200);
  const failure = await send(request(Readable.from([Buffer.from('{}')]))).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ProviderError);
  expect(failure).toMatchObject({ message: 'openai-compatible: connection failed (ECONNRESET)', retryable: true });
  expect({ answered: server.answered, reset: server.reset }).toEqual({ answered: 1, reset: 1 });
});

test('a request on a kept connection that we give up on (its timeout) is not sent again', async () => {
  await server.close();
  server = await startResettingServer('hold');
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    expect((await send(request(Buffer.from('{}')))).status).toBe(200);
    // Our own timeout destroys the request, which Node reports as a reset of the kept connection; that is not the
    // server's doing, so nothing is resent: a resend would outlive the caller, and its failure nobody would await.
    const failure = await send(request(Buffer.from('{}'), 200)).catch((error: unknown) => error);
    expect(failure).toMatchObject({ message: 'openai-compatible: no answer within 200 ms', retryable: true });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.received).toBe(2);
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
