// A local HTTP server in front of another that refuses any request whose whole body is over a limit, as OpenAI's API
// does (413 above 25 MiB for the request, not the file part; docs/decisions.md §9 "Limits of real providers"), and forwards
// the rest. It can also answer the next requests itself (e.g. a 400 that has nothing to do with `response_format`).
// Bodies are buffered: tests send a few hundred kB.

import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  /** Bytes of the whole body received. */
  bytes: number;
  status: number;
}

export interface BodyLimitProxy {
  url: string;
  readonly requests: ProxiedRequest[];
  /** The next request is answered with this, not forwarded. */
  answerNext(status: number, body: unknown): void;
  stop(): Promise<void>;
}

export async function startBodyLimitProxy(options: { target: string; maxBodyBytes: number }): Promise<BodyLimitProxy> {
  const requests: ProxiedRequest[] = [];
  const scripted: Array<{ status: number; body: unknown }> = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const answer = (status: number, payload: unknown) => {
      requests.push({ bytes: body.length, status });
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    };
    const next = scripted.shift();
    if (next) return answer(next.status, next.body);
    if (body.length > options.maxBodyBytes) {
      return answer(413, {
        error: {
          message: `Maximum content size limit (${options.maxBodyBytes}) exceeded (${body.length} bytes read)`,
          type: 'server_error',
          param: null,
          code: null,
        },
      });
    }
    const target = new URL(req.url ?? '/', options.target);
    const forwarded = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (upstream) => {
      requests.push({ bytes: body.length, status: upstream.statusCode ?? 0 });
      res.writeHead(upstream.statusCode ?? 502, upstream.headers);
      upstream.pipe(res);
    });
    forwarded.on('error', () => res.destroy());
    forwarded.end(body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    answerNext(status, body) {
      scripted.push({ status, body });
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
