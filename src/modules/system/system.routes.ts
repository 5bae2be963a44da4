import { readFileSync } from 'node:fs';
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
    getDocs: (_req, res) => {
      res.type('html').send(readFileSync(DOCS_PATH, 'utf8'));
    },
    getAsyncApiDocs: (_req, res) => {
      res.type('html').send(readFileSync(ASYNCAPI_DOCS_PATH, 'utf8'));
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
