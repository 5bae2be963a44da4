import { createServer, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { v7 as uuidv7 } from 'uuid';
import { ApiError, errorBody } from '../domain/errors.ts';

/**
 * The API's HTTP server. A request so malformed that Node's parser refuses it (a header name with spaces, a
 * `Content-Length` that is not a number, an oversized header block) never reaches Express; Node's default answer is a
 * bare `400` with no body. Here it gets the same envelope as every other refusal (DECISIONS §3: JSON, `X-Request-Id`),
 * so a client — or the contract fuzzer — sees one error shape whatever it sends.
 */
export function createHttpServer(listener: RequestListener): Server {
  const server = createServer(listener);
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
