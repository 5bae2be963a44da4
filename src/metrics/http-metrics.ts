import type { Request, RequestHandler } from 'express';
import { ApiError } from '../domain/errors.ts';
import type { Handlers } from '../http/handler.ts';
import { safeEqual } from '../security/api-keys.ts';
import { metrics } from './metrics.ts';

/**
 * Times every request and records it under the operationId express-openapi-validator matched (`unmatched` for a
 * path outside the contract): labelled by operation, never by raw path, so cardinality is bounded (docs/decisions.md §12).
 */
export function httpMetrics(): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.observeHttpRequest(operationOf(req), res.statusCode, seconds);
    });
    next();
  };
}

function operationOf(req: Request): string {
  // Set by express-openapi-validator once the path and method match an operation of spec/openapi.yaml.
  const operationId = (req as { openapi?: { schema?: { operationId?: unknown } } }).openapi?.schema?.operationId;
  return typeof operationId === 'string' ? operationId : 'unmatched';
}

/**
 * `GET /metrics`: open without a token (development); with METRICS_TOKEN set, only `Authorization: Bearer <token>`
 * (compared in constant time) gets the numbers.
 */
export function metricsRoutes(deps: { token: string | undefined }): Handlers {
  return {
    getMetrics: async (req, res) => {
      if (!mayScrape(req.get('authorization'), deps.token)) {
        throw new ApiError('UNAUTHORIZED', 'A valid metrics token is required');
      }
      res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    },
  };
}

/** The one token rule, for the API's route and the worker's endpoint alike. */
export function mayScrape(authorization: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const presented = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1] ?? '';
  return safeEqual(presented, token);
}
