import { DefaultLogger, NativeConnection, Runtime, Worker, type LogEntry, type WorkerOptions } from '@temporalio/worker';
import { webhookSettings } from './activities/deliveries.ts';
import { createActivities } from './activities/index.ts';
import { PROVIDER_CALL_ACTIVITIES } from './activities/transcription.ts';
import { TRANSCRIPTION_PROVIDER_IDS } from './providers/registry.ts';
import { transcriptionTaskQueue } from '../workflows/shared.ts';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import { serveWorkerMetrics } from './metrics/worker-endpoint.ts';
import { ssrfPolicy } from './security/ssrf-guard.ts';
import { createCore } from './services/container.ts';
import { ensureBuckets } from './storage/s3-client.ts';
import { workflowSource } from './temporal/workflow-bundle.ts';
import { activeTracing, temporalActivityTracing, temporalWorkerTracing } from './tracing/tracing.ts';

export { WORKFLOWS_PATH } from './temporal/workflow-bundle.ts';

/**
 * The Temporal worker role: polls the task queue and runs workflows/ (bundled by the SDK) and the activities
 * (src/activities/, built by createActivities from this process's own database, S3 and media-provider clients).
 */
export async function runWorker(config: Config, logger: Logger, databaseUrl: string): Promise<() => Promise<void>> {
  // The worker only publishes room events (two bus connections are plenty); it never listens.
  const core = await createCore(config, logger, databaseUrl, { busPoolSize: 2 });
  const { orm, s3, store, provider, events, tenants, rooms, providers, handovers, secretBox } = core;
  await ensureBuckets(s3, config.s3);
  const webhooks = webhookSettings(config);
  const activities = createActivities({
    orm,
    store,
    provider,
    events,
    logger,
    tenants,
    rooms,
    providers,
    webhooks,
    handovers,
    secretBox,
    ssrfPolicy: ssrfPolicy(config),
    postMeetingRetryWindowSeconds: config.postMeetingRetryWindowSeconds,
    presenceStaleAfterSeconds: config.ws.presenceStaleAfterSeconds,
  });
  installRuntime(config.temporal.taskQueue, logger, config.worker.sdkMetricsAddress);
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  // With tracing on (src/main.ts started it): workflow and activity spans in the recording's trace (docs/decisions.md §12).
  const tracing = temporalWorkerTracing(activeTracing());
  const workflows = workflowSource(config.worker.workflowBundlePath, tracing.interceptors?.workflowModules);
  if (config.worker.workflowBundlePath && !workflows.workflowBundle) {
    logger.info('WORKFLOW_BUNDLE_PATH not used: tracing is on and that bundle has no tracing interceptors; bundling workflows/');
  }
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    ...workflows,
    activities,
    ...workerTuning(config.worker),
    ...tracing,
  });
  const providerWorkers = await createProviderWorkers({ connection, namespace: config.temporal.namespace, taskQueue: config.temporal.taskQueue, activities }, providerLimits(config));
  const running = Promise.all([worker.run(), ...providerWorkers.map((w) => w.run())]);
  logger.info({ taskQueue: config.temporal.taskQueue, address: config.temporal.address, ...config.worker }, 'Convene worker polling');
  const metricsEndpoint = config.metrics.workerPort > 0 ? await serveWorkerMetrics(config.metrics.workerPort, config.metrics.token, logger) : undefined;
  return async () => {
    // Synchronously first: the SDK's own SIGTERM handler would otherwise start draining and make this call throw.
    for (const w of [worker, ...providerWorkers]) w.shutdown(); // each finishes the tasks in hand, then its run() resolves
    await metricsEndpoint?.stop();
    await running;
    await connection.close();
    await core.close();
  };
}

/** Each transcription provider's concurrency limit per worker process (`OPENAI_MAX_CONCURRENCY`, `DEEPGRAM_MAX_CONCURRENCY`). */
export function providerLimits(config: Pick<Config, 'providers'>): Record<(typeof TRANSCRIPTION_PROVIDER_IDS)[number], number> {
  return { openai: config.providers.openai.maxConcurrency, deepgram: config.providers.deepgram.maxConcurrency };
}

/**
 * One activity-only worker per transcription provider, on the provider's own task queue (workflows/shared.ts
 * transcriptionTaskQueue), running at most the provider's limit of calls at once: a call beyond it waits in Temporal
 * (schedule-to-start, visible in the UI and the SDK metrics) and holds no slot of the main worker, whose uploads,
 * database steps and deliveries go on (docs/scaling.md). Every provider gets one, usable or not: a tenant's own key
 * can make a provider usable that the operator did not configure.
 */
export async function createProviderWorkers(
  base: { connection: NativeConnection; namespace?: string; taskQueue: string; activities: object },
  limits: Record<(typeof TRANSCRIPTION_PROVIDER_IDS)[number], number>,
): Promise<Worker[]> {
  const all = base.activities as Record<string, unknown>;
  const calls = Object.fromEntries(PROVIDER_CALL_ACTIVITIES.map((name) => [name, all[name]]));
  const interceptors = temporalActivityTracing();
  return Promise.all(
    TRANSCRIPTION_PROVIDER_IDS.map((id) =>
      Worker.create({
        connection: base.connection,
        namespace: base.namespace,
        taskQueue: transcriptionTaskQueue(base.taskQueue, id),
        activities: calls,
        maxConcurrentActivityTaskExecutions: limits[id],
        // A poller per slot at most: an idle worker holds few long polls open.
        maxConcurrentActivityTaskPolls: Math.min(limits[id], 2),
        ...(interceptors ? { interceptors } : {}),
      }),
    ),
  );
}

/** The worker settings of src/config.ts as the SDK's options (docs/scaling.md: what to start from). */
export function workerTuning(settings: Config['worker']): Partial<WorkerOptions> {
  return {
    maxConcurrentWorkflowTaskExecutions: settings.maxConcurrentWorkflowTasks,
    maxConcurrentActivityTaskExecutions: settings.maxConcurrentActivities,
    maxConcurrentWorkflowTaskPolls: settings.workflowTaskPollers,
    maxConcurrentActivityTaskPolls: settings.activityTaskPollers,
    stickyQueueScheduleToStartTimeout: settings.stickyScheduleToStartTimeoutMs,
    ...(settings.maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows: settings.maxCachedWorkflows }),
  };
}

/**
 * The SDK's runtime: its log lines go through our logger (JSON in production, one readable line each under
 * `npm run dev`), and its Prometheus exporter (`temporal_*` metrics) runs when asked for. The runtime is per process
 * and must be installed before the first connection; a runtime someone else installed first (a test) is left as it is.
 */
function installRuntime(mainTaskQueue: string, logger: Logger, sdkMetricsAddress: string | undefined): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('TRACE', (entry) => forwardSdkLog(entry, mainTaskQueue, logger)),
      ...(sdkMetricsAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress: sdkMetricsAddress } } } } : {}),
    });
  } catch (err) {
    if (!/already/i.test(String((err as Error).message))) throw err;
  }
}

/**
 * Warnings are for real faults. The SDK's own lifecycle lines at INFO (the workflow bundle's webpack listing, every
 * state change of every worker, "no Nexus services") become debug: "Convene worker polling" says the worker runs. So
 * does "No workflows registered" from the provider-queue workers, which run activities only by design (createProviderWorkers);
 * on the main task queue it would be a fault and stays a warning. Workflow and activity log lines keep their level.
 */
export function forwardSdkLog({ level, message, meta }: LogEntry, mainTaskQueue: string, logger: Logger): void {
  const lifecycle = meta?.sdkComponent === 'worker' && level === 'INFO';
  const activityOnly = /^No workflows registered/.test(message) && meta?.taskQueue !== mainTaskQueue;
  const to = lifecycle || activityOnly ? 'debug' : (level.toLowerCase() as 'trace' | 'debug' | 'info' | 'warn' | 'error');
  logger[to]({ ...meta }, message);
}
