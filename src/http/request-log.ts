import type { RequestHandler } from 'express';
import type { Logger } from '../logger.ts';

/** One line per request when it ends: method, path (no query string: it may carry a deprecated token), status, time. */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const principal = req.principal;
      logger.info(
        {
          request_id: req.id,
          method: req.method,
          path: req.path,
          status: res.statusCode,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
          tenant_id: principal && principal.kind !== 'admin' ? principal.tenantId : undefined,
        },
        'request',
      );
    });
    next();
  };
}
