// Benchmark (not a test): the end of a teaching period. N rooms record, then all stop in the same second;
// how long until the tenant's receiver has each `meeting.recording_ready` webhook, and where does that time go?
//
//   npx node bench/burst.ts [--sizes 50,200] [--lone 5] [--seconds 60] [--workers 1] [--env KEY=VALUE ...] [--durable]
//                           [--temporal-store memory|file] [--temporal-pragma PRAGMA=VALUE ...] [--temporal-env KEY=VALUE ...]
//
// Run it under the shared lock on a shared machine: flock /tmp/convene-jest.lock npx node bench/burst.ts ...
//
// The real stack of bench/stack.ts (PostgreSQL, Temporal dev server, SeaweedFS, the API and --workers workers as child
// processes; the development media server as the provider and the `openai` transcriber, builtin AI, a
// signature-checking webhook receiver in this process). --env KEY=VALUE is added to the API's and the workers'
// environment (the worker settings of src/config.ts, for trying values without editing anything). --temporal-store file
// keeps the dev server's state in a SQLite file as `npm run dev` does (default: in memory, as the tests);
// --temporal-pragma passes its --sqlite-pragma (journal_mode, synchronous; default scripts/stack/temporal.ts
// FILE_STORE_PRAGMAS, SQLite's own are journal_mode=delete synchronous=full); --temporal-env adds to its environment (the
// Go runtime's GOGC, GOMAXPROCS).
//
// The run: one tenant with its limits raised (max_concurrent_rooms through the admin key; RATE_LIMIT_PER_MINUTE for
// the API), then
//   1. the lone recording (the baseline): one warm-up, then --lone recordings one after another; median;
//   2. per N of --sizes: N rooms each start a recording, then the N stops are sent at once; the bench waits for N
//      webhooks (or gives up when none has come for STALL_MS) and then for the system to be idle again.
// Latency = from sending a recording's Stop to the receiver having read its whole webhook body (both in this
// process, one clock). Makespan = first Stop sent → last webhook received.
//
// Where the time goes comes from Temporal's own data: the histories of each recording's four workflows on the path
// (ingestion → post-meeting → webhook delivery; and a transcription child, awaited, in post-meeting runs begun before its
// inline-transcription patch). For every workflow task and
// activity: queue wait = Scheduled → Started (schedule-to-start) and work = Started → Completed (start-to-close),
// aggregated per workflow type and per activity type. Per recording, the same waits and works are summed along the
// path (a parent's tasks only until it started the next workflow, so nothing is counted twice); the rest of the
// latency is "outside the worker": the API's Stop, the provider's processing and notification, the API starting the
// ingestion, Temporal starting children and dispatching tasks.
//
// Checks: exactly one webhook per recording, each signed correctly, valid against the AsyncAPI schema, complete
// (recording link, transcript, summary, action items, no errors[]); one notification per recording; no workflow task
// timed out or failed. Any problem is reported and makes the bench exit 1.
// Results: BENCHMARKS.md ("Burst"), docs/scaling.md.
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import type { ReceivedWebhook } from '../test/helpers/webhook-receiver.ts';
import { FILE_STORE_PRAGMAS } from '../scripts/stack/temporal.ts';
import { postMeetingWorkflowId, recordingIngestWorkflowId, transcriptionWorkflowId, webhookDeliveryWorkflowId } from '../workflows/shared.ts';
import { cpuBetween, cpuSnapshot } from './process-cpu.ts';
import { counterGrowth, histogramMeans, lowestWhile, scrape, type Scrape } from './sdk-metrics.ts';
import { fmt, loadAverage, log, runBench, sleep, startStack, stats, type Stack } from './stack.ts';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '50,200' },
    lone: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '60' },
    workers: { type: 'string', default: '1' },
    env: { type: 'string', multiple: true, default: [] },
    durable: { type: 'boolean', default: false },
    'temporal-store': { type: 'string', default: 'memory' },
    'temporal-pragma': { type: 'string', multiple: true, default: [] },
    'temporal-env': { type: 'string', multiple: true, default: [] },
    'temporal-config': { type: 'string', multiple: true, default: [] },
  },
});
const SIZES = args.sizes.split(',').map((s) => positiveInteger('sizes', s));
const LONE = positiveInteger('lone', args.lone);
const SECONDS = positiveInteger('seconds', args.seconds);
const WORKERS = positiveInteger('workers', args.workers);
const keyValues = (option: string, pairs: string[]): Record<string, string> =>
  Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`--${option} ${pair}: expected KEY=VALUE`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
const EXTRA_ENV = keyValues('env', args.env);
const TEMPORAL_STORE = args['temporal-store'] === 'file' ? 'file' : 'memory';
if (args['temporal-store'] !== TEMPORAL_STORE) throw new Error('--temporal-store must be memory or file');
const TEMPORAL_PRAGMAS = keyValues('temporal-pragma', args['temporal-pragma']);
const TEMPORAL_ENV = keyValues('temporal-env', args['temporal-env']);
const TEMPORAL_CONFIG = keyValues('temporal-config', args['temporal-config']);
/** A burst gives up when no webhook has arrived for this long (a stuck pipeline ends the bench instead of hanging it). */
const STALL_MS = 120_000;
/** Set-up calls (rooms, recording starts) in flight at once: the set-up is not what is measured. */
const SETUP_CONCURRENCY = 16;

function positiveInteger(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must list positive integers`);
  return n;
}

/** Runs `fn` over `items` with at most `limit` calls in flight. */
async function pool<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

// --- Temporal histories ---------------------------------------------------------------------------------------------

/** One workflow task or activity of a history: when it was scheduled, started and completed (ms since the epoch). */
interface Task {
  kind: 'workflow task' | 'activity';
  /** The workflow type for workflow tasks, the activity type for activities. */
  name: string;
  scheduled: number;
  started: number;
  completed: number;
  /** Activity attempt (1 unless retried). */
  attempt: number;
}

interface WorkflowTrace {
  type: string;
  started: number;
  closed: number | null;
  tasks: Task[];
  /** Workflow tasks that timed out (e.g. a sticky queue's schedule-to-start) or failed; activity failures. */
  troubles: string[];
}

const toNumber = (v: unknown): number =>
  v == null ? NaN : typeof v === 'object' && 'toNumber' in (v as object) ? (v as { toNumber(): number }).toNumber() : Number(v);
const timeOf = (ts: { seconds?: unknown; nanos?: number | null } | null | undefined): number =>
  ts ? toNumber(ts.seconds) * 1000 + (ts.nanos ?? 0) / 1e6 : NaN;

async function traceWorkflow(stack: Stack, workflowId: string, type: string): Promise<WorkflowTrace> {
  const history = await stack.temporal.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const byId = new Map<number, (typeof events)[number]>();
  for (const e of events) byId.set(toNumber(e.eventId), e);
  const trace: WorkflowTrace = { type, started: NaN, closed: null, tasks: [], troubles: [] };
  for (const e of events) {
    const at = timeOf(e.eventTime);
    if (e.workflowExecutionStartedEventAttributes) trace.started = at;
    else if (e.workflowExecutionCompletedEventAttributes || e.workflowExecutionFailedEventAttributes) trace.closed = at;
    else if (e.workflowTaskCompletedEventAttributes) {
      const a = e.workflowTaskCompletedEventAttributes;
      const scheduled = byId.get(toNumber(a.scheduledEventId));
      const started = byId.get(toNumber(a.startedEventId));
      trace.tasks.push({ kind: 'workflow task', name: type, scheduled: timeOf(scheduled?.eventTime), started: timeOf(started?.eventTime), completed: at, attempt: 1 });
    } else if (e.workflowTaskTimedOutEventAttributes) {
      trace.troubles.push(`workflow task timed out (${e.workflowTaskTimedOutEventAttributes.timeoutType})`);
    } else if (e.workflowTaskFailedEventAttributes) {
      trace.troubles.push(`workflow task failed (${e.workflowTaskFailedEventAttributes.cause})`);
    } else if (e.activityTaskCompletedEventAttributes) {
      const a = e.activityTaskCompletedEventAttributes;
      const scheduled = byId.get(toNumber(a.scheduledEventId));
      const started = byId.get(toNumber(a.startedEventId));
      trace.tasks.push({
        kind: 'activity',
        name: scheduled?.activityTaskScheduledEventAttributes?.activityType?.name ?? '?',
        scheduled: timeOf(scheduled?.eventTime),
        started: timeOf(started?.eventTime),
        completed: at,
        attempt: started?.activityTaskStartedEventAttributes?.attempt ?? 1,
      });
    } else if (e.activityTaskFailedEventAttributes || e.activityTaskTimedOutEventAttributes) {
      trace.troubles.push('activity failed or timed out');
    }
  }
  return trace;
}

// --- one recording, measured ------------------------------------------------------------------------------------------

interface Measured {
  recordingId: string;
  /** Stop sent → webhook received, ms. */
  latency: number;
  stopSent: number;
  received: number;
  /** Parts of the latency along the path, ms (see the header). */
  stopToNotification: number;
  notificationToIngest: number;
  taskWait: number;
  taskWork: number;
  activityWait: number;
  activityWork: number;
  outside: number;
  traces: WorkflowTrace[];
  problems: string[];
}

async function measure(stack: Stack, recordingId: string, stopSent: number, hooks: ReceivedWebhook[]): Promise<Measured> {
  const problems: string[] = [];
  if (hooks.length !== 1) problems.push(`${hooks.length} webhooks`);
  const hook = hooks[0];
  const body = hook?.json ?? {};
  if (hook && !hook.signatureValid) problems.push('signature did not verify');
  if (hook?.schemaErrors) problems.push(`payload schema: ${hook.schemaErrors}`);
  if (!body.transcript?.text) problems.push('no transcript');
  if (typeof body.summary !== 'string' || body.summary.length === 0) problems.push('no summary');
  if (!Array.isArray(body.action_items) || body.action_items.length === 0) problems.push('no action items');
  if (!body.recording?.download_url) problems.push('no recording link');
  if ((body.errors ?? []).length > 0) problems.push(`errors[]: ${JSON.stringify(body.errors)}`);

  const { db, media } = stack;
  const rec = (await db.query('SELECT upstream_recording_id FROM recordings WHERE id = $1', [recordingId])).rows[0];
  const transcript = (await db.query(`SELECT id FROM transcripts WHERE recording_id = $1 AND origin = 'post_meeting'`, [recordingId])).rows[0];
  const deliveries = (await db.query('SELECT id FROM webhook_deliveries WHERE recording_id = $1 AND resent_from IS NULL', [recordingId])).rows;
  if (deliveries.length !== 1) problems.push(`${deliveries.length} delivery rows`);
  const notifications = media.notifications.filter((n) => n.recordingId === rec?.upstream_recording_id);
  if (notifications.length !== 1) problems.push(`${notifications.length} notification attempts`);
  const notified = notifications.length > 0 ? Date.parse(notifications[0].at) : NaN;

  const received = hook?.receivedAt ?? NaN;
  // A post-meeting run since its inline-transcription patch transcribes in its own activities: a transcription
  // workflow is on the path only for runs begun before (or the code before it, when this bench measures that).
  const child = transcript ? await stack.temporal.workflow.getHandle(transcriptionWorkflowId(transcript.id)).describe().then(() => true, () => false) : false;
  const [ingest, postMeeting, transcription, delivery] = await Promise.all([
    traceWorkflow(stack, recordingIngestWorkflowId(recordingId), 'recordingIngestWorkflow'),
    traceWorkflow(stack, postMeetingWorkflowId(recordingId), 'postMeetingWorkflow'),
    child ? traceWorkflow(stack, transcriptionWorkflowId(transcript.id), 'transcriptionWorkflow') : undefined,
    deliveries[0] ? traceWorkflow(stack, webhookDeliveryWorkflowId(deliveries[0].id), 'webhookDeliveryWorkflow') : undefined,
  ]);
  const traces = [ingest, postMeeting, transcription, delivery].filter((t): t is WorkflowTrace => t !== undefined);
  for (const t of traces) for (const trouble of t.troubles) problems.push(`${t.type}: ${trouble}`);
  // A parent's tasks count until the next workflow on the path started (post-meeting waits for the transcription
  // without tasks of its own, so the transcription's start is not a cut-off for it); the delivery's until the receipt.
  const cutoff = new Map<WorkflowTrace, number>([
    [ingest, postMeeting?.started ?? received],
    [postMeeting, delivery?.started ?? received],
  ]);
  if (transcription) cutoff.set(transcription, received);
  if (delivery) cutoff.set(delivery, received);
  const sums = { taskWait: 0, taskWork: 0, activityWait: 0, activityWork: 0 };
  for (const [trace, until] of cutoff) {
    for (const task of trace.tasks) {
      if (!(task.scheduled < until)) continue;
      const wait = task.started - task.scheduled;
      const work = Math.min(task.completed, until) - task.started;
      if (task.kind === 'workflow task') {
        sums.taskWait += wait;
        sums.taskWork += work;
      } else {
        sums.activityWait += wait;
        sums.activityWork += work;
      }
    }
  }
  const latency = received - stopSent;
  const inWorker = sums.taskWait + sums.taskWork + sums.activityWait + sums.activityWork;
  return {
    recordingId,
    latency,
    stopSent,
    received,
    stopToNotification: notified - stopSent,
    notificationToIngest: (ingest?.started ?? NaN) - notified,
    ...sums,
    outside: latency - inWorker,
    traces,
    problems,
  };
}

/** Waits for one webhook per recording; gives up when none has come for STALL_MS. */
async function waitForWebhooks(stack: Stack, recordingIds: string[]): Promise<Map<string, ReceivedWebhook[]>> {
  const wanted = new Set(recordingIds);
  const byRecording = new Map<string, ReceivedWebhook[]>();
  let seen = 0;
  let lastProgress = Date.now();
  for (;;) {
    const received = stack.receiver.received;
    for (; seen < received.length; seen++) {
      const id = received[seen].json?.recording?.id;
      if (!wanted.has(id)) continue;
      byRecording.set(id, [...(byRecording.get(id) ?? []), received[seen]]);
      lastProgress = Date.now();
    }
    if (byRecording.size === wanted.size) return byRecording;
    if (Date.now() - lastProgress > STALL_MS) {
      log(`gave up: ${wanted.size - byRecording.size} webhooks missing, none for ${STALL_MS / 1000} s`);
      return byRecording;
    }
    await sleep(10);
  }
}

/** Until every open workflow of the namespace is a timer that outlives the run (retention, auto-stop, empty room). */
async function waitUntilIdle(stack: Stack, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const busy = `ExecutionStatus = 'Running' AND WorkflowType IN ('recordingIngestWorkflow', 'postMeetingWorkflow', 'transcriptionWorkflow', 'webhookDeliveryWorkflow')`;
  while (Date.now() < deadline) {
    const { count } = await stack.temporal.workflow.count(busy);
    if (count === 0) return;
    await sleep(250);
  }
  log('the pipeline was still busy after the wait; measuring anyway');
}

// --- the bench --------------------------------------------------------------------------------------------------------

interface Round {
  label: string;
  size: number;
  measured: Measured[];
  makespan: number;
  /** First Stop sent → last Stop answered. */
  stopSpread: number;
  missing: number;
  extraWebhooks: number;
  loadBefore: string;
  loadAfter: string;
  /** CPU seconds per role from the first Stop until the pipeline was idle again, and that span in ms. */
  cpu: Array<[string, number]>;
  cpuSpanMs: number;
  /** The workers' SDK metrics before the first Stop and once idle; the lowest free slots seen meanwhile. */
  sdkBefore: Scrape;
  sdkAfter: Scrape;
  lowestFreeSlots: Map<string, number>;
}

async function main(): Promise<void> {
  const loadAtStart = await loadAverage();
  const total = SIZES.reduce((a, b) => a + b, 0) + LONE + 2;
  const stack = await startStack({
    name: 'burst',
    recordingSeconds: SECONDS,
    durable: args.durable,
    workers: WORKERS,
    temporalStore: TEMPORAL_STORE,
    temporalPragmas: TEMPORAL_PRAGMAS,
    temporalEnv: TEMPORAL_ENV,
    temporalConfig: TEMPORAL_CONFIG,
    // A burst's set-up alone is 3 calls per room: the bench tenant is not what the rate limit protects.
    env: { RATE_LIMIT_PER_MINUTE: '1000000', ...EXTRA_ENV },
    workerMetrics: true,
  });
  const { call, receiver } = stack;
  const { auth } = await stack.createTenant('Burst bench', { max_concurrent_rooms: total });

  const createRooms = (count: number, prefix: string) =>
    pool(Array.from({ length: count }, (_, i) => i), SETUP_CONCURRENCY, async (i) => {
      const room = await call('POST', '/api/v1/rooms', auth, { name: `${prefix}-${i + 1}`, config: { recording_enabled: true } }, 201);
      return room.id as string;
    });
  const startRecording = async (roomId: string) => (await call('POST', `/api/v1/rooms/${roomId}/recordings/start`, auth, undefined, 201)).data.id as string;
  const stop = async (roomId: string) => {
    const sent = Date.now();
    await call('POST', `/api/v1/rooms/${roomId}/recordings/stop`, auth);
    return { sent, answered: Date.now() };
  };

  const rounds: Round[] = [];
  const runRound = async (label: string, roomIds: string[]): Promise<Round> => {
    const loadBefore = await loadAverage();
    const before = receiver.received.length;
    const recordingIds = await pool(roomIds, SETUP_CONCURRENCY, startRecording);
    await sleep(1000); // they record
    const sdkBefore = await scrape(stack.workerMetricsUrls);
    const cpuBefore = cpuSnapshot();
    const spanStart = Date.now();
    const stops = await Promise.all(roomIds.map(stop));
    const { result: hooks, lowest: lowestFreeSlots } = await lowestWhile(
      stack.workerMetricsUrls,
      'temporal_worker_task_slots_available',
      waitForWebhooks(stack, recordingIds),
    );
    await waitUntilIdle(stack);
    const cpu = cpuBetween(cpuBefore, cpuSnapshot());
    const cpuSpanMs = Date.now() - spanStart;
    const sdkAfter = await scrape(stack.workerMetricsUrls);
    await sleep(500);
    const loadAfter = await loadAverage();
    const extraWebhooks = receiver.received.length - before - recordingIds.length;
    const measured = await pool(recordingIds, 8, (id, i) => measure(stack, id, stops[i].sent, hooks.get(id) ?? []));
    const firstStop = Math.min(...stops.map((s) => s.sent));
    const lastHook = Math.max(...measured.map((m) => m.received).filter(Number.isFinite));
    return {
      label,
      size: roomIds.length,
      measured,
      makespan: lastHook - firstStop,
      stopSpread: Math.max(...stops.map((s) => s.answered)) - firstStop,
      missing: recordingIds.length - hooks.size,
      extraWebhooks,
      loadBefore,
      loadAfter,
      cpu,
      cpuSpanMs,
      sdkBefore,
      sdkAfter,
      lowestFreeSlots,
    };
  };

  // 1. The lone recording, in its own room: a warm-up, then LONE runs one after another.
  const [loneRoom] = await createRooms(1, 'lone');
  const lone: Measured[] = [];
  for (let i = 0; i <= LONE; i++) {
    const round = await runRound(i === 0 ? 'lone warm-up' : `lone ${i}`, [loneRoom]);
    if (i > 0) lone.push(...round.measured);
    log(`${round.label}: ${fmt(round.measured[0].latency)} ms${round.measured[0].problems.length ? ` PROBLEMS: ${round.measured[0].problems.join('; ')}` : ''}`);
  }

  // 2. The bursts.
  for (const size of SIZES) {
    const roomIds = await createRooms(size, `burst-${size}`);
    log(`burst of ${size}: rooms created, recording…`);
    const round = await runRound(`burst ${size}`, roomIds);
    rounds.push(round);
    const s = stats(round.measured.map((m) => m.latency));
    log(`burst of ${size}: p50 ${fmt(s.p50)} ms, p95 ${fmt(s.p95)}, max ${fmt(s.max)}, makespan ${fmt(round.makespan)}, missing ${round.missing}`);
  }
  const loadAtEnd = await loadAverage();

  // --- report ---------------------------------------------------------------------------------------------------------
  const loneMedian = stats(lone.map((m) => m.latency)).p50;
  const lines: string[] = [
    '',
    `burst: sizes ${SIZES.join(', ')}; ${SECONDS} s recordings; ${WORKERS} worker(s); PostgreSQL ${args.durable ? 'durable' : 'fsync=off'}; ` +
      `Temporal store ${TEMPORAL_STORE}${Object.entries({ ...(TEMPORAL_STORE === 'file' ? FILE_STORE_PRAGMAS : {}), ...TEMPORAL_PRAGMAS, ...TEMPORAL_ENV })
        .map(([k, v]) => ` ${k}=${v}`)
        .join('')}` +
      (Object.keys(EXTRA_ENV).length ? `; env ${Object.entries(EXTRA_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''),
    `Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB; ` +
      `${loadAtStart} at start, ${loadAtEnd} at the end`,
    '',
    `lone recording (baseline): ${lone.map((m) => fmt(m.latency)).join(', ')} ms; median ${fmt(loneMedian)} ms`,
    '',
    '| N | p50 ms | p95 ms | max ms | p95 / lone | makespan ms | Stops answered within ms | delivered | problems | load before → after |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rounds.map((r) => {
      const s = stats(r.measured.map((m) => m.latency));
      const withProblems = r.measured.filter((m) => m.problems.length > 0).length;
      return `| ${r.size} | ${fmt(s.p50)} | ${fmt(s.p95)} | ${fmt(s.max)} | ${(s.p95 / loneMedian).toFixed(1)} | ${fmt(r.makespan)} | ${fmt(r.stopSpread)} | ` +
        `${r.size - r.missing}/${r.size}${r.extraWebhooks > 0 ? ` (+${r.extraWebhooks} extra)` : ''} | ${withProblems} | ${r.loadBefore.replace('load average ', '')} → ${r.loadAfter.replace('load average ', '')} |`;
    }),
  ];

  // Which process the burst kept busy: CPU seconds from the first Stop until idle, and the share of the machine.
  const roles = [...new Set(rounds.flatMap((r) => r.cpu.map(([role]) => role)))];
  lines.push(
    '',
    `CPU seconds per process from the first Stop until the pipeline was idle (and the average number of cores that is, of ${cpus().length}):`,
    '',
    `| process | ${rounds.map((r) => `N=${r.size} (${(r.cpuSpanMs / 1000).toFixed(1)} s)`).join(' | ')} |`,
    `|---|${rounds.map(() => '---').join('|')}|`,
    ...[...roles, 'all'].map((role) => `| ${role} | ${rounds.map((r) => {
      const seconds = role === 'all' ? r.cpu.reduce((a, [, v]) => a + v, 0) : (r.cpu.find(([name]) => name === role)?.[1] ?? 0);
      return `${seconds.toFixed(1)} s (${(seconds / (r.cpuSpanMs / 1000)).toFixed(2)})`;
    }).join(' | ')} |`),
  );

  // The workers' own view (the SDK's metrics): queue waits by queue, sticky cache, free slots.
  lines.push('', "Workers' Temporal SDK metrics per burst (means over the burst, ms; from WORKER_TEMPORAL_METRICS_ADDRESS):", '');
  for (const r of rounds) {
    const clean = (labels: string) => labels.replace(/(namespace|service_name|queue)="[^"]*",?/g, '').replace(',}', '}');
    const means = (name: string) =>
      histogramMeans(r.sdkBefore, r.sdkAfter, name).map((h) => `${clean(h.labels)} n=${h.count} mean ${fmt(h.meanMs)}`).join('; ') || '–';
    lines.push(
      `N=${r.size}:`,
      `  workflow task schedule-to-start: ${means('temporal_workflow_task_schedule_to_start_latency')}`,
      `  workflow task execution: ${means('temporal_workflow_task_execution_latency')}`,
      `  workflow task replay: ${means('temporal_workflow_task_replay_latency')}`,
      `  activity schedule-to-start: ${means('temporal_activity_schedule_to_start_latency')}`,
      `  sticky cache hits ${counterGrowth(r.sdkBefore, r.sdkAfter, 'temporal_sticky_cache_hit')}, misses ${counterGrowth(r.sdkBefore, r.sdkAfter, 'temporal_sticky_cache_miss')}, ` +
        `forced evictions ${counterGrowth(r.sdkBefore, r.sdkAfter, 'temporal_sticky_cache_total_forced_eviction')}`,
      `  lowest free slots while it ran: ${[...r.lowestFreeSlots].map(([labels, v]) => `${clean(labels)} ${v}`).join('; ') || '–'}`,
    );
  }
  if (process.env.BENCH_LIST_SDK_METRICS && rounds[0]) {
    lines.push('', 'SDK series seen:', ...[...new Set([...rounds[0].sdkAfter.keys()].map((k) => k.replace(/\{.*$/, '')))].sort().map((n) => `  ${n}`));
  }

  // Per recording, along the path: how the latency splits (medians of each part; they need not add up exactly).
  const parts: Array<[string, (m: Measured) => number]> = [
    ['Stop → provider notifies (API stop, provider processing 200 ms)', (m) => m.stopToNotification],
    ['notification → ingestion started (API)', (m) => m.notificationToIngest],
    ['workflow tasks: queue wait (sum along the path)', (m) => m.taskWait],
    ['workflow tasks: work', (m) => m.taskWork],
    ['activities: queue wait', (m) => m.activityWait],
    ['activities: work', (m) => m.activityWork],
    ['outside the worker (API, provider, Temporal between tasks)', (m) => m.outside],
    ['total', (m) => m.latency],
  ];
  const groups: Array<[string, Measured[]]> = [['lone', lone], ...rounds.map((r): [string, Measured[]] => [`N=${r.size}`, r.measured])];
  lines.push(
    '',
    'Per recording, Stop → webhook along the path, median ms (p95 in brackets):',
    '',
    `| part | ${groups.map(([g]) => g).join(' | ')} |`,
    `|---|${groups.map(() => '---').join('|')}|`,
    ...parts.map(([name, pick]) => `| ${name} | ${groups.map(([, ms]) => { const s = stats(ms.map(pick)); return `${fmt(s.p50)} (${fmt(s.p95)})`; }).join(' | ')} |`),
  );

  // Per step type: queue wait vs work, every task of the four workflows (not only the path).
  for (const [group, ms] of groups) {
    const steps = new Map<string, Task[]>();
    for (const m of ms) for (const t of m.traces) for (const task of t.tasks) {
      const key = `${task.kind === 'activity' ? 'activity' : 'workflow task'} ${task.name}`;
      steps.set(key, [...(steps.get(key) ?? []), task]);
    }
    lines.push(
      '',
      `${group}: per step, queue wait (scheduled → started) vs work (started → completed), ms`,
      '',
      '| step | count | wait p50 | wait p95 | work p50 | work p95 | retried |',
      '|---|---|---|---|---|---|---|',
      ...[...steps.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, tasks]) => {
        const wait = stats(tasks.map((t) => t.started - t.scheduled));
        const work = stats(tasks.map((t) => t.completed - t.started));
        return `| ${key} | ${tasks.length} | ${fmt(wait.p50)} | ${fmt(wait.p95)} | ${fmt(work.p50)} | ${fmt(work.p95)} | ${tasks.filter((t) => t.attempt > 1).length} |`;
      }),
    );
  }

  const problems = [...lone, ...rounds.flatMap((r) => r.measured)].filter((m) => m.problems.length > 0);
  const missing = rounds.reduce((a, r) => a + r.missing, 0);
  const extra = rounds.reduce((a, r) => a + r.extraWebhooks, 0);
  lines.push('', `recordings with a problem: ${problems.length}; webhooks missing: ${missing}; extra webhooks: ${extra}`);
  for (const m of problems.slice(0, 20)) lines.push(`  ${m.recordingId}: ${m.problems.join('; ')}`);
  for (const r of rounds) {
    const s = stats(r.measured.map((m) => m.latency));
    lines.push(
      `N=${r.size}: p95 ≤ 5× lone (${fmt(5 * loneMedian)} ms): ${s.p95 <= 5 * loneMedian ? 'met' : 'NOT met'}; makespan ≤ 5 s: ${r.makespan <= 5000 ? 'met' : 'NOT met'}` +
        `; makespan per recording ${(r.makespan / r.size).toFixed(0)} ms`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if (problems.length > 0 || missing > 0 || extra > 0) throw new Error('lost, duplicated or incomplete webhooks: see above');
}

await runBench(main);
