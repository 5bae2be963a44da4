// The spans Convene makes itself (docs/decisions.md §12), on the OpenTelemetry API only: without a registered SDK
// (no OTEL_EXPORTER_OTLP_ENDPOINT, src/tracing/tracing.ts) every call here is the API's no-op, no span is recorded,
// no context is stored and no header is added. Temporal's own spans (workflows, activities, starts) come from its
// interceptors (tracing.ts); these cover what they cannot see: the HTTP request, the hand-over from a committed row to
// its start, provider calls, S3 requests and the webhook POST.
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';

const tracer = trace.getTracer('convene');
let active = false;

/** Whether this process registered the SDK (src/tracing/tracing.ts): the few places that would do work only then. */
export function tracingActive(): boolean {
  return active;
}

/** Called by startTracing once the SDK is registered, and with `false` once its shutdown unregistered it. */
export function markTracingActive(on = true): void {
  active = on;
}

/** The W3C trace context (`traceparent`, and `tracestate` when there is one) as a plain object. */
export type TraceCarrier = Record<string, string>;

/**
 * `fn` inside a new span, child of the active one; the span ends when `fn` settles, with an error status and the
 * exception when it throws.
 */
export async function withSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

export function failed(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/**
 * The active trace context to store with work that continues later elsewhere (an outbox row: src/handover/); null
 * when there is no sampled trace, so nothing is stored when tracing is off.
 */
export function currentTraceCarrier(): TraceCarrier | null {
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : null;
}

/** The context a stored carrier continues; the root context (a new trace) for none. */
export function contextFromCarrier(carrier: TraceCarrier | null | undefined): Context {
  return carrier ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;
}

/** Adds `traceparent` (and `tracestate`) for the active span to outgoing HTTP headers; nothing without a trace. */
export function withTraceHeaders<H extends Record<string, string | number>>(headers: H): H {
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return { ...headers, ...carrier };
}

/** The trace and span id of the active span, for log lines (src/logger.ts); empty outside a trace. */
export function activeTraceIds(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpanContext(context.active());
  if (!span || !trace.isSpanContextValid(span)) return {};
  return { trace_id: span.traceId, span_id: span.spanId };
}

export { context, ROOT_CONTEXT, SpanKind, SpanStatusCode };
