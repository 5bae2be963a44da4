// Drill (not a test; not part of `npm test`): the service's PostgreSQL goes away for minutes while a real recording is
// between download and webhook; the tenant must still receive one complete webhook (docs/decisions.md §15;
// docs/operations.md, "Drill").
//
//   npm run drill:postgres -- --fault stopped|paused [--minutes 10] [--recording-seconds 30] [--wait-minutes 30]
//
// Takes 5 + minutes + a few minutes. On a shared machine run it under the shared lock:
//   flock /tmp/convene-jest.lock npm run drill:postgres -- --fault stopped --minutes 10
//
// The whole stack of bench/stack.ts as `npm run dev` runs it (PostgreSQL with fsync on, the Temporal dev server,
// SeaweedFS, the API and a worker as child processes; the development media server as the provider and the `openai`
// transcriber; builtin AI; a webhook receiver in this process that checks signatures and the AsyncAPI schema).
// Driven over the public API as a tenant would: a tenant (admin key), its webhook config asking for the recording,
// transcript, summary and action items, a room, Start Recording, Stop Recording. The provider then notifies the API,
// and the ingestion downloads the file and uploads it to S3. The moment the object appears in the bucket (between the
// upload and `markRecordingReady`, or shortly after), PostgreSQL goes away:
//   --fault stopped  fast shutdown: connections are refused (a restart or a failover); started again afterwards;
//   --fault paused   SIGSTOP on the postmaster and its backends: connections are accepted and never answered (a hung
//                    host or a network partition); SIGCONT afterwards.
// Meanwhile the drill prints once a minute what `GET /readyz` answers and the pending activities Temporal reports
// (attempt, last failure). After --minutes it brings PostgreSQL back and waits (up to --wait-minutes, the time
// printed) for the webhook, then checks: exactly one webhook for the recording, signature valid, payload valid,
// transcript, summary and action items present, no `errors[]`; the delivery log (GET /api/v1/webhook-deliveries)
// lists one delivery for it, `succeeded`; the recording (GET /api/v1/recordings/{id}) is `ready`; one object in S3.
// It prints a report (times; per workflow, each activity's final attempt from Temporal's histories) and exits 1 on
// any failed check. The API's, the worker's and PostgreSQL's logs are copied to a folder the report names.
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { copyFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadAverage, log, onCleanup, runBench, sleep, startStack, type Stack } from '../../bench/stack.ts';
import { recordingIngestWorkflowId, webhookDeliveryWorkflowId } from '../../workflows/shared.ts';
import { clusterPids } from '../stack/postgres.ts';

const { values: args } = parseArgs({
  options: {
    fault: { type: 'string' },
    minutes: { type: 'string', default: '10' },
    'recording-seconds': { type: 'string', default: '30' },
    'wait-minutes': { type: 'string', default: '30' },
  },
});
const FAULT = faultKind(args.fault);
const MINUTES = positiveNumber('minutes', args.minutes);
const RECORDING_SECONDS = positiveNumber('recording-seconds', args['recording-seconds']);
const WAIT_MINUTES = positiveNumber('wait-minutes', args['wait-minutes']);
const MINUTE = 60_000;
/** After the webhook, how long the drill keeps listening for a second one before it counts. */
const QUIET_MS = 30_000;

function faultKind(value: string | undefined): 'stopped' | 'paused' {
  if (value !== 'stopped' && value !== 'paused') throw new Error('--fault must be "stopped" or "paused"');
  return value;
}

function positiveNumber(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
  return n;
}

const iso = (ms: number) => new Date(ms).toISOString();
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// --- taking PostgreSQL away and back -----------------------------------------------------------------------------------

interface Fault {
  begin(): Promise<void>;
  end(): Promise<void>;
}

function faultOf(stack: Stack): Fault {
  if (FAULT === 'stopped') return { begin: () => stack.postgres.stop(), end: () => stack.postgres.start() };
  let paused: number[] = [];
  const resume = async () => {
    for (const pid of paused) process.kill(pid, 'SIGCONT');
    paused = [];
  };
  onCleanup(resume); // before the stack stops PostgreSQL: a stopped process would not see the shutdown signal
  return {
    begin: async () => {
      paused = clusterPids(stack.postgres.port);
      for (const pid of paused) process.kill(pid, 'SIGSTOP');
    },
    end: resume,
  };
}

// --- what the drill watches --------------------------------------------------------------------------------------------

async function readyz(stack: Stack): Promise<string> {
  const begun = Date.now();
  try {
    const res = await fetch(`${stack.apiUrl}/readyz`, { signal: AbortSignal.timeout(10_000) });
    return `${res.status} in ${Date.now() - begun} ms`;
  } catch (err) {
    return `no answer (${(err as Error).name}) after ${Date.now() - begun} ms`;
  }
}

/** The pending activities of every running workflow, as Temporal's describe reports them. */
async function pendingActivities(stack: Stack): Promise<string[]> {
  const lines: string[] = [];
  for await (const wf of stack.temporal.workflow.list({ query: `ExecutionStatus = 'Running'` })) {
    const description = await stack.temporal.workflow.getHandle(wf.workflowId, wf.runId).describe();
    for (const a of description.raw.pendingActivities ?? []) {
      const failure = a.lastFailure?.message ? `; last failure: ${a.lastFailure.message.slice(0, 160)}` : '';
      lines.push(`${wf.workflowId}: ${a.activityType?.name} attempt ${a.attempt}${failure}`);
    }
  }
  return lines;
}

const toNumber = (v: unknown): number =>
  v == null ? NaN : typeof v === 'object' && 'toNumber' in (v as object) ? (v as { toNumber(): number }).toNumber() : Number(v);
const timeOf = (ts: { seconds?: unknown; nanos?: number | null } | null | undefined): number =>
  ts ? toNumber(ts.seconds) * 1000 + (ts.nanos ?? 0) / 1e6 : NaN;

/**
 * Per workflow of the namespace (this stack's: all of them belong to the drill), its status and each activity's
 * final attempt with its completion time, from the histories. Workflow task failures and timeouts are listed too.
 */
async function attemptsFromHistories(stack: Stack): Promise<{ lines: string[]; troubles: string[] }> {
  const lines: string[] = [];
  const troubles: string[] = [];
  for await (const wf of stack.temporal.workflow.list()) {
    const history = await stack.temporal.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    const events = history.events ?? [];
    const byId = new Map(events.map((e) => [toNumber(e.eventId), e]));
    const steps: string[] = [];
    for (const e of events) {
      const done = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes;
      if (done) {
        const scheduled = byId.get(toNumber(done.scheduledEventId));
        const started = byId.get(toNumber(done.startedEventId));
        const outcome = e.activityTaskCompletedEventAttributes ? 'completed' : e.activityTaskFailedEventAttributes ? 'FAILED' : 'TIMED OUT';
        const attempt = started?.activityTaskStartedEventAttributes?.attempt ?? 1;
        steps.push(`${scheduled?.activityTaskScheduledEventAttributes?.activityType?.name} ${outcome} at attempt ${attempt} (${iso(timeOf(e.eventTime))})`);
        if (!e.activityTaskCompletedEventAttributes) troubles.push(`${wf.workflowId}: activity ${outcome}`);
      }
      if (e.workflowTaskFailedEventAttributes) troubles.push(`${wf.workflowId}: workflow task failed (${e.workflowTaskFailedEventAttributes.cause})`);
      if (e.workflowTaskTimedOutEventAttributes) troubles.push(`${wf.workflowId}: workflow task timed out`);
    }
    lines.push(`${wf.workflowId} [${wf.status.name}]${steps.length ? '' : ' (no activities)'}`, ...steps.map((s) => `    ${s}`));
  }
  return { lines, troubles };
}

/** When the ingestion's `markRecordingReady` completed, and at which attempt (from its history). */
async function markedReady(stack: Stack, recordingId: string): Promise<{ at: number; attempt: number } | null> {
  const history = await stack.temporal.workflow.getHandle(recordingIngestWorkflowId(recordingId)).fetchHistory();
  const events = history.events ?? [];
  const byId = new Map(events.map((e) => [toNumber(e.eventId), e]));
  for (const e of events) {
    const done = e.activityTaskCompletedEventAttributes;
    const scheduled = done && byId.get(toNumber(done.scheduledEventId));
    if (scheduled?.activityTaskScheduledEventAttributes?.activityType?.name !== 'markRecordingReady') continue;
    const attempt = byId.get(toNumber(done!.startedEventId))?.activityTaskStartedEventAttributes?.attempt ?? 1;
    return { at: timeOf(e.eventTime), attempt };
  }
  return null;
}

async function objectsUnder(stack: Stack, prefix: string): Promise<string[]> {
  const listed = await stack.s3.client.send(new ListObjectsV2Command({ Bucket: stack.s3.bucket, Prefix: prefix }));
  return (listed.Contents ?? []).map((o) => o.Key!).filter(Boolean);
}

// --- the drill -----------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const drillStart = Date.now();
  log(`PostgreSQL ${FAULT} for ${MINUTES} min; ${await loadAverage()}`);
  const stack = await startStack({ name: `drill-postgres-${FAULT}`, recordingSeconds: RECORDING_SECONDS, durable: true });
  const logsDir = join(tmpdir(), `convene-drill-postgres-${FAULT}-${iso(drillStart).replace(/[:.]/g, '-')}`);
  onCleanup(async () => {
    await mkdir(logsDir, { recursive: true });
    for (const file of ['api.log', 'worker.log', 'postgres/postgres.log']) {
      await copyFile(join(stack.root, file), join(logsDir, file.replace('/', '-'))).catch(() => undefined);
    }
    log(`logs copied to ${logsDir}`);
  });
  const fault = faultOf(stack);
  const { call } = stack;

  // As a tenant would: its webhook config asks for everything (bench/stack.ts createTenant), a room, a recording.
  const tenant = await stack.createTenant('PostgreSQL outage drill');
  const room = await call('POST', '/api/v1/rooms', tenant.auth, { name: 'drill', config: { recording_enabled: true } }, 201);
  const recordingId = (await call('POST', `/api/v1/rooms/${room.id}/recordings/start`, tenant.auth, undefined, 201)).data.id as string;
  await sleep(1000);
  const stopSent = Date.now();
  await call('POST', `/api/v1/rooms/${room.id}/recordings/stop`, tenant.auth);
  log(`recording ${recordingId} stopped at ${iso(stopSent)}; waiting for its object in S3`);

  // The moment the ingestion has uploaded the file: the object appears.
  const prefix = `recordings/${tenant.id}/`;
  let objectSeen = NaN;
  while (Date.now() - stopSent < 5 * MINUTE) {
    if ((await objectsUnder(stack, prefix)).length > 0) {
      objectSeen = Date.now();
      break;
    }
    await sleep(5); // the upload and `markRecordingReady` are often less than 100 ms apart
  }
  if (!Number.isFinite(objectSeen)) throw new Error('the recording never reached S3 (5 minutes after Stop)');
  await fault.begin();
  const outageBegan = Date.now();
  log(`object in S3 at ${iso(objectSeen)} (${seconds(objectSeen - stopSent)} after Stop); PostgreSQL ${FAULT} at ${iso(outageBegan)}`);
  // Whether the outage caught the recording before its row said `ready` is read from the histories at the end.

  const outageEnds = outageBegan + MINUTES * MINUTE;
  const readyzDuringOutage: string[] = [];
  await sleep(3000);
  for (;;) {
    const answer = await readyz(stack);
    readyzDuringOutage.push(answer);
    log(`${seconds(Date.now() - outageBegan)} into the outage: GET /readyz ${answer}`);
    for (const line of await pendingActivities(stack).catch((err) => [`(describe failed: ${String(err)})`])) log(`  pending: ${line}`);
    const left = outageEnds - Date.now();
    if (left <= 0) break;
    await sleep(Math.min(MINUTE, left));
  }
  await fault.end();
  const outageEnded = Date.now();
  log(`PostgreSQL back at ${iso(outageEnded)} after ${seconds(outageEnded - outageBegan)}; waiting up to ${WAIT_MINUTES} min for the webhook`);

  // The webhook, then a quiet period for a second one.
  const forRecording = () => stack.receiver.received.filter((r) => r.json?.recording?.id === recordingId);
  while (forRecording().length === 0 && Date.now() - outageEnded < WAIT_MINUTES * MINUTE) await sleep(250);
  const first = forRecording()[0];
  if (first) {
    log(`webhook received at ${iso(first.receivedAt)}: ${seconds(first.receivedAt - outageEnded)} after PostgreSQL came back`);
    const deliveryId = String(first.headers['x-convene-delivery'] ?? '');
    if (deliveryId) {
      await stack.temporal.workflow
        .getHandle(webhookDeliveryWorkflowId(deliveryId))
        .result()
        .catch((err) => log(`delivery workflow: ${String(err)}`));
    }
    await sleep(QUIET_MS);
  } else {
    log(`no webhook within ${WAIT_MINUTES} min of PostgreSQL coming back`);
  }

  // --- checks ---------------------------------------------------------------------------------------------------------
  const problems: string[] = [];
  // The API must be ready again too (a tenant's requests need the database): checked first, so a stuck API is reported
  // as such rather than as a hung request.
  // (Checked only now, after the webhook and the quiet period: the time printed is an upper bound.)
  let readyAgain = NaN;
  let checks = 0;
  const readyDeadline = Date.now() + 5 * MINUTE;
  while (Date.now() < readyDeadline) {
    checks += 1;
    if ((await readyz(stack)).startsWith('200')) {
      readyAgain = Date.now();
      break;
    }
    await sleep(1000);
  }
  const readiness = Number.isFinite(readyAgain)
    ? `GET /readyz 200 again by ${iso(readyAgain)} (+${seconds(readyAgain - outageEnded)}; ${checks === 1 ? 'at the first check' : `at check ${checks}, one a second`})`
    : `GET /readyz NOT 200 by ${iso(Date.now())} (+${seconds(Date.now() - outageEnded)})`;
  log(readiness);
  if (!Number.isFinite(readyAgain)) problems.push(`the API was not ready 5 minutes after the checks began: ${await readyz(stack)}`);
  const hooks = forRecording();
  if (hooks.length !== 1) problems.push(`${hooks.length} webhooks for the recording (expected 1)`);
  if (stack.receiver.received.length !== hooks.length) problems.push(`${stack.receiver.received.length - hooks.length} webhooks for something else`);
  if (first) {
    const body = first.json ?? {};
    if (!first.signatureValid) problems.push('signature did not verify');
    if (first.schemaErrors) problems.push(`payload schema: ${first.schemaErrors}`);
    if (!body.transcript?.text) problems.push('no transcript');
    if (typeof body.summary !== 'string' || body.summary.length === 0) problems.push('no summary');
    if (!Array.isArray(body.action_items) || body.action_items.length === 0) problems.push('no action items');
    if ((body.errors ?? []).length > 0) problems.push(`errors[]: ${JSON.stringify(body.errors)}`);
  }
  // Without a ready API these requests would hang: not asked then (reported as not checked).
  let deliveryLog = 'NOT CHECKED (API not ready)';
  let recordingStatus = 'NOT CHECKED (API not ready)';
  if (Number.isFinite(readyAgain)) {
    const deliveries = ((await call('GET', '/api/v1/webhook-deliveries?limit=100', tenant.auth)).data as any[]).filter(
      (d) => d.recording_id === recordingId,
    );
    deliveryLog = deliveries.map((d) => `${d.id} ${d.status} (${d.attempt_count} attempt(s))`).join('; ') || 'none';
    if (deliveries.length !== 1 || deliveries[0].status !== 'succeeded') problems.push(`delivery log: ${deliveryLog} (expected one, succeeded)`);
    recordingStatus = (await call('GET', `/api/v1/recordings/${recordingId}`, tenant.auth)).data.status;
    if (recordingStatus !== 'ready') problems.push(`recording is ${recordingStatus} (expected ready)`);
  }
  const objects = await objectsUnder(stack, prefix);
  if (objects.length !== 1 || !objects[0].startsWith(`${prefix}${recordingId}`)) problems.push(`objects in S3: ${JSON.stringify(objects)}`);
  const { lines: histories, troubles } = await attemptsFromHistories(stack);
  // Where the outage met the recording: the upload is done either way; the race is with the row's `ready`.
  const ready = await markedReady(stack, recordingId);
  const caught = !ready
    ? 'markRecordingReady never completed'
    : ready.at > outageBegan
      ? `in the ingestion: markRecordingReady completed at attempt ${ready.attempt}, after the outage`
      : `after the ingestion (markRecordingReady completed ${seconds(outageBegan - ready.at)} before it): in post-meeting`;

  // --- report ---------------------------------------------------------------------------------------------------------
  const report = [
    '',
    `PostgreSQL outage drill: ${FAULT}, ${MINUTES} min; ${RECORDING_SECONDS} s recording; started ${iso(drillStart)}`,
    `  Stop Recording sent          ${iso(stopSent)}`,
    `  object in S3                 ${iso(objectSeen)} (+${seconds(objectSeen - stopSent)})`,
    `  PostgreSQL ${FAULT.padEnd(8)}          ${iso(outageBegan)}`,
    `  PostgreSQL back              ${iso(outageEnded)} (outage ${seconds(outageEnded - outageBegan)})`,
    `  webhook received             ${first ? `${iso(first.receivedAt)} (+${seconds(first.receivedAt - outageEnded)} after PostgreSQL came back)` : 'NONE'}`,
    `  the outage met the recording ${caught}`,
    `  GET /readyz during the outage: ${readyzDuringOutage.join(', ')}`,
    `  after it: ${readiness}`,
    `  webhooks for the recording: ${hooks.length}; delivery log: ${deliveryLog}; recording: ${recordingStatus}; objects: ${objects.length}`,
    '',
    "Temporal's histories (each activity's final attempt):",
    ...histories.map((l) => `  ${l}`),
    ...(troubles.length ? ['', 'In the histories (not a failed check by itself):', ...troubles.map((t) => `  ${t}`)] : []),
    '',
    `${await loadAverage()} at the end; the drill took ${seconds(Date.now() - drillStart)}`,
    problems.length ? `RESULT: FAIL\n${problems.map((p) => `  - ${p}`).join('\n')}` : 'RESULT: PASS',
  ];
  process.stdout.write(`${report.join('\n')}\n`);
  if (problems.length > 0) throw new Error(`the drill failed: ${problems.join('; ')}`);
}

await runBench(main);
