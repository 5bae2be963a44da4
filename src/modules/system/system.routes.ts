import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Request, Response } from 'express';
import type { OperationHandlers } from '../../http/router.ts';
import { ASYNCAPI_PATH, OPENAPI_PATH } from '../../http/spec.ts';

export type ReadinessCheck = () => Promise<void>;

const DOCS_PATH = new URL('../../../generated/docs.html', import.meta.url);
const ASYNCAPI_DOCS_PATH = new URL('../../../generated/asyncapi.html', import.meta.url);

/** Probes and the published contract (DECISIONS §1). */
export function systemRoutes(deps: { checks: Record<string, ReadinessCheck> }): OperationHandlers {
  const openapi = readFileSync(OPENAPI_PATH, 'utf8');
  const asyncapi = readFileSync(ASYNCAPI_PATH, 'utf8');
  return {
    getHealth: (_req, res) => {
      res.json({ status: 'ok' });
    },
    getReadiness: async (_req, res) => {
      const entries = await Promise.all(
        Object.entries(deps.checks).map(async ([name, check]) => {
          try {
            await withTimeout(check(), 3000);
            return [name, 'ok'] as const;
          } catch {
            return [name, 'error'] as const;
          }
        }),
      );
      const checks = Object.fromEntries(entries);
      const ready = entries.every(([, state]) => state === 'ok');
      res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'error', checks });
    },
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
 * The documentation page (2.7 MB of HTML, Redoc inlined): read and gzip-compressed once, at start-up, with Node's zlib
 * (no dependency, and no CPU per request, where a compression middleware would gzip the same 2.7 MB on every request),
 * served with a strong ETag (304 on a match) and a 5-minute cache. Its Content-Security-Policy allows nothing off the
 * service: the page is self-contained (scripts/generate.ts removes Redoc's CDN logo), and a leftover is blocked.
 */
function docsHandler(): (req: Request, res: Response) => void {
  const html = readFileSync(DOCS_PATH);
  const gzipped = gzipSync(html, { level: 9 });
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
    res.set({ ETag: etag, 'Cache-Control': 'public, max-age=300', Vary: 'Accept-Encoding' });
    const cached = req.get('If-None-Match');
    if (cached && cached.split(',').some((tag) => tag.trim() === etag)) {
      res.status(304).end();
      return;
    }
    res.set('Content-Security-Policy', policy).type('html');
    if (req.acceptsEncodings('gzip') === 'gzip') {
      res.set('Content-Encoding', 'gzip').send(gzipped);
    } else {
      res.send(html);
    }
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
