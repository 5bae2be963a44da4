// The server span of each API request (docs/decisions.md §12): the root of a recording's trace when the request is the
// provider's notification. It continues a `traceparent` the caller sent (W3C Trace Context). Named by the contract's
// operationId once express-openapi-validator has matched one (bounded names, as the metrics' labels); the URL's query
// string is never recorded (it may carry a deprecated token). Probes and scrapes are not traced.
import type { IncomingMessage, RequestListener } from 'node:http';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { tracingActive } from './spans.ts';

const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);
const tracer = trace.getTracer('convene');

export function traceRequests(listener: RequestListener): RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (!tracingActive() || UNTRACED.has(path)) return listener(req, res);
    const parent = propagation.extract(context.active(), req.headers);
    const span = tracer.startSpan(
      `${req.method} ${path}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method ?? '', 'url.path': path } },
      parent,
    );
    const ctx = trace.setSpan(parent, span);
    // Body parsing and `finish` listeners run from the socket's callbacks: bound, they see this request's context
    // (its log lines carry its trace_id, src/logger.ts).
    context.bind(ctx, req);
    context.bind(ctx, res);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const operationId = operationOf(req);
      if (operationId) span.updateName(`${req.method} ${operationId}`);
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    context.with(ctx, () => listener(req, res));
  };
}

function operationOf(req: IncomingMessage): string | undefined {
  const operationId = (req as { openapi?: { schema?: { operationId?: unknown } } }).openapi?.schema?.operationId;
  return typeof operationId === 'string' ? operationId : undefined;
}
