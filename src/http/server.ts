import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import onHeaders from 'on-headers';
import type { Duplex } from 'node:stream';
import { v7 as uuidv7 } from 'uuid';
import type { Config } from '../config.ts';
import { ApiError, errorBody } from '../domain/errors.ts';
import { traceRequests } from '../tracing/request-spans.ts';

/**
 * The API's HTTP server. A request so malformed that Node's parser refuses it (a header name with spaces, a
 * `Content-Length` that is not a number, an oversized header block) never reaches Express; Node's default answer is a
 * bare `400` with no body. Here it gets the same envelope as every other refusal (docs/decisions.md §3: JSON, `X-Request-Id`),
 * so a client — or the contract fuzzer — sees one error shape whatever it sends. With `limits` (config.http), a client
 * too slow with its headers or its request is answered 408 and disconnected, and one that stops reading its response
 * is disconnected after the write timeout (docs/decisions.md §16). With tracing on, each request is a server span
 * (docs/decisions.md §12, src/tracing/request-spans.ts).
 */
export function createHttpServer(app: RequestListener, limits?: Config['http']): Server {
  const listener = traceRequests(app);
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
    limits
      ? (req, res) => {
          dropUnreadResponse(res, limits.writeTimeoutMs);
          listener(req, res);
        }
      : listener,
  );
  if (limits) server.maxHeadersCount = limits.maxHeadersCount;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerUnparsable(err, socket));
  return server;
}

/**
 * A response whose client stops reading would hold its socket and its buffered body for as long as the client likes
 * (Node has no write timeout: `server.timeout` is 0). From the moment the headers are written, the whole response must
 * be taken within `ms`; otherwise the connection is destroyed and the buffered body freed. The clock starts at the
 * headers, not at the request, so a slow handler is not cut off by it.
 */
function dropUnreadResponse(res: ServerResponse, ms: number): void {
  onHeaders(res, () => {
    const timer = setTimeout(() => res.destroy(), ms);
    timer.unref();
    const stop = () => clearTimeout(timer);
    res.once('finish', stop);
    res.once('close', stop);
  });
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
