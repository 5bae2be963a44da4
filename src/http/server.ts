import { createServer, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { v7 as uuidv7 } from 'uuid';
import type { Config } from '../config.ts';
import { ApiError, errorBody } from '../domain/errors.ts';

/**
 * The API's HTTP server. A request so malformed that Node's parser refuses it (a header name with spaces, a
 * `Content-Length` that is not a number, an oversized header block) never reaches Express; Node's default answer is a
 * bare `400` with no body. Here it gets the same envelope as every other refusal (docs/decisions.md §3: JSON, `X-Request-Id`),
 * so a client — or the contract fuzzer — sees one error shape whatever it sends. With `limits` (config.http), a client
 * too slow with its headers or its request is answered 408 and disconnected.
 */
export function createHttpServer(listener: RequestListener, limits?: Config['http']): Server {
  const server = createServer(
    limits
      ? {
          // Slowloris: headers must be complete within headersTimeout, the whole request within requestTimeout; Node
          // checks both every connectionsCheckingInterval (30 s by default, far too coarse for a 20 s limit).
          headersTimeout: limits.headersTimeoutMs,
          requestTimeout: limits.requestTimeoutMs,
          keepAliveTimeout: limits.keepAliveTimeoutMs,
          connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(limits.headersTimeoutMs / 4))),
        }
      : {},
    listener,
  );
  if (limits) server.maxHeadersCount = limits.maxHeadersCount;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerUnparsable(err, socket));
  return server;
}

function answerUnparsable(err: NodeJS.ErrnoException, socket: Duplex): void {
  // Nothing to answer on a connection that is already gone, or once a response has started on it.
  if (err.code === 'ECONNRESET' || !socket.writable || (socket as Duplex & { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    return;
  }
  const requestId = uuidv7();
  const message =
    err.code === 'HPE_HEADER_OVERFLOW' ? 'Request headers are too large' : `Malformed HTTP request (${err.code ?? 'parse error'})`;
  const body = JSON.stringify(errorBody(new ApiError('VALIDATION_ERROR', message, { details: [{ path: '/headers', message }] }), requestId));
  socket.end(
    'HTTP/1.1 400 Bad Request\r\n' +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
