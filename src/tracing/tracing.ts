// OpenTelemetry for one process (docs/decisions.md §12): started by src/main.ts before anything else when
// OTEL_EXPORTER_OTLP_ENDPOINT is set (config.tracing), otherwise never loaded (the SDK modules are imported here only
// then, and src/tracing/spans.ts stays on the API's no-ops). One trace follows a recording: the notification's server
// span (request-spans.ts), its hand-over row (src/handover/), Temporal's client, workflow and activity interceptors
// (below), provider calls, S3 requests and the webhook POST with its `traceparent`.
//
// The SDK is the 1.x line (sdk-trace-base 1.30, OTLP exporters 0.57): the one @temporalio/interceptors-opentelemetry
// 1.24 builds workflow spans for (their shape changed in 2.x).
import { createRequire } from 'node:module';
import { context, propagation, trace } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Resource } from '@opentelemetry/resources';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { Config } from '../config.ts';
import { markTracingActive } from './spans.ts';

const require = createRequire(import.meta.url);
/** The module the workflow bundle loads the package's workflow interceptors from. */
export const WORKFLOW_INTERCEPTORS = require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');
/** Loaded on first use only, with the SDK (synchronously: createTemporalClient is). */
const interceptorsPackage = () => require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');

export type ServiceName = 'convene-api' | 'convene-worker';

export interface Tracing {
  resource: Resource;
  spanProcessor: SpanProcessor;
  /** Exports what is buffered, then stops (shutdown's last step). */
  shutdown(): Promise<void>;
}

let started: Tracing | undefined;

/** The SDK registered for this process, or undefined when tracing is off. */
export function activeTracing(): Tracing | undefined {
  return started;
}

/**
 * Registers the SDK (global tracer provider, AsyncLocalStorage context, W3C propagation) with a batching OTLP/HTTP
 * exporter for `service`. Does nothing and returns undefined when tracing is not configured.
 */
export async function startTracing(service: ServiceName, settings: Config['tracing']): Promise<Tracing | undefined> {
  if (!settings.enabled) return undefined;
  if (started) return started;
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { Resource, detectResourcesSync, envDetectorSync }, exporters] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    settings.protocol === 'http/json' ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
  // OTEL_RESOURCE_ATTRIBUTES adds to the resource; the service name is the role's.
  const resource = detectResourcesSync({ detectors: [envDetectorSync] }).merge(new Resource({ 'service.name': service }));
  // URL (OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces, or …_TRACES_ENDPOINT as given), headers and timeout: from the env.
  const spanProcessor = new BatchSpanProcessor(new exporters.OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  markTracingActive();
  started = {
    resource,
    spanProcessor,
    shutdown: async () => {
      await provider.shutdown();
      // Everything register() set is unset, so this process is as it was before startTracing (a later start, e.g.
      // the next test file in the same process, registers afresh instead of finding a stopped provider).
      trace.disable();
      context.disable();
      propagation.disable();
      markTracingActive(false);
      started = undefined;
    },
  };
  return started;
}

/** The Temporal client's interceptors: a start or signal continues the active trace (none when tracing is off). */
export function temporalClientInterceptors(): { workflow: WorkflowClientInterceptor[] } | undefined {
  if (!started) return undefined;
  const { OpenTelemetryWorkflowClientInterceptor } = interceptorsPackage();
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}

/**
 * The worker's options for tracing: workflow spans made in the sandbox (the package's workflow interceptors, bundled
 * with workflows/) and exported through a sink, activity spans around each execution. Replay stays deterministic:
 * the interceptors only add headers and spans (sinks are not called during replay), and the SDK's flags keep the
 * histories recorded without them replaying as they ran (test/workflows/replay.test.ts replays them with these on).
 */
export function temporalWorkerTracing(tracing: Pick<Tracing, 'resource' | 'spanProcessor'> | undefined): {
  interceptors?: WorkerInterceptors;
  sinks?: InjectedSinks<OpenTelemetrySinks>;
} {
  if (!tracing) return {};
  const otel = interceptorsPackage();
  return {
    interceptors: {
      workflowModules: [WORKFLOW_INTERCEPTORS],
      activity: [(ctx) => ({ inbound: new otel.OpenTelemetryActivityInboundInterceptor(ctx), outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx) })],
    },
    sinks: { exporter: otel.makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}

/** Activity-only workers (the provider queues) need the activity half only. */
export function temporalActivityTracing(): Pick<WorkerInterceptors, 'activity'> | undefined {
  const activity = temporalWorkerTracing(started).interceptors?.activity;
  return activity ? { activity } : undefined;
}
