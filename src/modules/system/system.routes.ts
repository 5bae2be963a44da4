import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Request, Response } from 'express';
import { publicHandler, type Handlers } from '../../http/handler.ts';
import { ASYNCAPI_PATH, OPENAPI_PATH } from '../../http/spec.ts';
import { cachedReadiness, type ReadinessChecks } from './readiness.ts';

export type { ReadinessChecks } from './readiness.ts';

const DOCS_PATH = new URL('../../../generated/docs.html', import.meta.url);
const ASYNCAPI_DOCS_PATH = new URL('../../../generated/asyncapi.html', import.meta.url);

/**
 * Probes and the published contract (docs/decisions.md §1). The probes answer JSON through the typed helper; the contract's
 * YAML, the HTML pages and the redirect are bytes, not JSON replies, so they stay plain Express handlers.
 */
export function systemRoutes(deps: { checks: ReadinessChecks }): Handlers {
  const openapi = readFileSync(OPENAPI_PATH, 'utf8');
  const asyncapi = readFileSync(ASYNCAPI_PATH, 'utf8');
  const readiness = cachedReadiness(deps.checks);
  return {
    getHealth: publicHandler<'getHealth'>(() => ({ status: 200, body: { status: 'ok' } })),
    getReadiness: publicHandler<'getReadiness'>(async () => {
      const body = await readiness();
      return { status: body.status === 'ok' ? 200 : 503, body };
    }),
    getOpenApiSpec: (_req, res) => {
      res.type('application/yaml').send(openapi);
    },
    getAsyncApiSpec: (_req, res) => {
      res.type('application/yaml').send(asyncapi);
    },
    getRoot: (_req, res) => {
      res.redirect(302, '/docs');
    },
    getAsyncApiDocs: (_req, res) => {
      res.type('html').send(readFileSync(ASYNCAPI_DOCS_PATH, 'utf8'));
    },
    getDocs: docsHandler(),
  };
}

/**
 * The documentation page (2.7 MB of HTML, Redoc inlined): read at start-up and gzip-compressed once, at its first
 * request (about 150 ms of CPU that a process never asked for its docs, such as a test's, does not spend), with Node's
 * zlib (no dependency, and no CPU per request, where a compression middleware would gzip the same 2.7 MB every time),
 * served with a strong ETag (304 on a match) and a 5-minute cache. Its Content-Security-Policy allows nothing off the
 * service: the page is self-contained (scripts/generate.ts removes Redoc's CDN logo), and a leftover is blocked.
 */
function docsHandler(): (req: Request, res: Response) => void {
  const html = readFileSync(DOCS_PATH);
  let gzipped: Buffer | undefined;
  const etag = `"${createHash('sha256').update(html).digest('base64url').slice(0, 27)}"`;
  const policy = [
    "default-src 'self'",
    "script-src 'self' 'unsafe-inline' blob:",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "worker-src 'self' blob:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return (req, res) => {
    // vary() adds to the Vary that CORS may have set (Origin); setting the header would replace it.
    res.set({ ETag: etag, 'Cache-Control': 'public, max-age=300' }).vary('Accept-Encoding');
    const cached = req.get('If-None-Match');
    if (cached && cached.split(',').some((tag) => tag.trim() === etag)) {
      res.status(304).end();
      return;
    }
    res.set('Content-Security-Policy', policy).type('html');
    if (req.acceptsEncodings('gzip') === 'gzip') {
      gzipped ??= gzipSync(html, { level: 9 });
      res.set('Content-Encoding', 'gzip').send(gzipped);
    } else {
      res.send(html);
    }
  };
}
