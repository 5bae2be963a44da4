// Tracing's switches (docs/decisions.md §12): on only with an OTLP endpoint, over HTTP only, and nothing at all when off.
import { loadConfig } from '../../../src/config.ts';
import { activeTraceIds, currentTraceCarrier, tracingActive, withSpan, withTraceHeaders } from '../../../src/tracing/spans.ts';
import { startTracing } from '../../../src/tracing/tracing.ts';

describe('config.tracing', () => {
  test('off without an endpoint; on with OTEL_EXPORTER_OTLP_ENDPOINT or …_TRACES_ENDPOINT; OTEL_SDK_DISABLED wins', () => {
    expect(loadConfig({}).tracing).toEqual({ enabled: false, protocol: 'http/protobuf' });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).tracing).toEqual({ enabled: true, protocol: 'http/protobuf' });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://jaeger:4318/v1/traces' }).tracing.enabled).toBe(true);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }).tracing.enabled).toBe(false);
  });

  test('http/json and http/protobuf are honoured (the traces-specific variable first); grpc is refused, naming the variable', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).tracing.protocol).toBe('http/json');
    expect(loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }).tracing.protocol).toBe('http/protobuf');
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });
});

describe('tracing off', () => {
  test('no SDK: spans are no-ops, nothing is stored with a hand-over, no header is added, logs get no trace id', async () => {
    expect(await startTracing('convene-api', { enabled: false, protocol: 'http/protobuf' })).toBeUndefined();
    expect(tracingActive()).toBe(false);
    const inside = await withSpan('step', {}, async () => ({ carrier: currentTraceCarrier(), headers: withTraceHeaders({ 'X-A': '1' }), ids: activeTraceIds() }));
    expect(inside).toEqual({ carrier: null, headers: { 'X-A': '1' }, ids: {} });
  });
});
