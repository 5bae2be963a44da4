// Tracing on (docs/decisions.md §12), in this test process: OTLP/HTTP with the default protocol (http/protobuf) to the
// endpoint the standard variable names, service.name from the role; a hand-over's carrier and a request's headers carry
// the active trace, and log lines name it.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '../../../src/logger.ts';
import { contextFromCarrier, context, currentTraceCarrier, tracingActive, withSpan, withTraceHeaders } from '../../../src/tracing/spans.ts';
import { startTracing } from '../../../src/tracing/tracing.ts';

test('spans go to OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces as protobuf; carriers, headers and log lines carry the trace', async () => {
  const received: Array<{ url: string; headers: IncomingHttpHeaders; body: Buffer }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const tracing = (await startTracing('convene-worker', { enabled: true, protocol: 'http/protobuf' }))!;
    expect(tracingActive()).toBe(true);
    let lines = '';
    const logger = createLogger('info', new Writable({ write: (chunk, _enc, done) => ((lines += chunk.toString()), done()) }));

    const seen = await withSpan('outer', {}, async () => {
      logger.info('inside');
      return { carrier: currentTraceCarrier(), headers: withTraceHeaders({ 'X-A': '1' }) };
    });
    const traceId = seen.carrier!.traceparent.split('-')[1];
    expect(seen.carrier!.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(seen.headers).toEqual({ 'X-A': '1', traceparent: seen.carrier!.traceparent });
    expect(JSON.parse(lines.trim())).toMatchObject({ msg: 'inside', trace_id: traceId });
    // What the relay does with a stored carrier: the start continues that trace.
    const continued = await context.with(contextFromCarrier(seen.carrier), () => withSpan('later', {}, async () => currentTraceCarrier()));
    expect(continued!.traceparent.split('-')[1]).toBe(traceId);

    await tracing.shutdown();
    // Shut down is off again: nothing of the SDK stays registered in the process.
    expect(tracingActive()).toBe(false);
    expect(await withSpan('after', {}, async () => currentTraceCarrier())).toBeNull();
    expect(received.length).toBeGreaterThan(0);
    expect(received[0].url).toBe('/v1/traces');
    expect(received[0].headers['content-type']).toBe('application/x-protobuf');
    const body = Buffer.concat(received.map((r) => r.body)).toString('latin1');
    for (const text of ['convene-worker', 'outer', 'later']) expect(body).toContain(text);
  } finally {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
