import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.ts';
import { mayScrape } from './http-metrics.ts';
import { metrics } from './metrics.ts';

/**
 * The worker has no HTTP API, yet its activities feed webhook, transcription and AI metrics: with WORKER_METRICS_PORT
 * set it answers `GET /metrics` on that port, under the same token rule as the API (docs/decisions.md §12).
 */
export async function serveWorkerMetrics(
  port: number,
  token: string | undefined,
  logger: Logger,
): Promise<{ port: number; stop: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    if (!mayScrape(req.headers.authorization, token)) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('A valid metrics token is required\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (err: unknown) => {
        logger.error({ err }, 'collecting metrics failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal error\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, resolve);
  });
  const bound = (server.address() as AddressInfo).port; // `port` 0 (tests): whichever was free
  logger.info({ port: bound }, 'worker metrics on /metrics');
  return { port: bound, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
