// Benchmark (not a test): what does refusing a hostile request cost the API, and does one stall everybody else?
// (docs/decisions.md §16: every request is cheap to refuse.)
//
//   npx node bench/hostile.ts [--repeat 5] [--rounds 3] [--timeout 30] [--bodies array-of-numbers,deep-nesting,...]
//
// Everything is real and started here (bench/stack.ts): PostgreSQL, Temporal, SeaweedFS and the API as a child process
// with the development configuration (no worker: nothing here reaches one). Each body is just under the 1 MiB limit:
//   array-of-numbers    bulk add, `{"participants":[1,1,…]}`: ~520,000 wrong items (maxItems is 100)
//   array-of-objects    bulk add, `{"participants":[{"x":1},…]}`: ~170,000 items, each with an unknown field and
//                       without the required `display_name`
//   unknown-properties  create room, `{"name":"r","k0":0,"k1":0,…}`: ~90,000 unknown fields of a closed object
//   deep-nesting        create room, `{"name":"r","config":[[[…]]]}`: ~520,000 levels
//   long-string         tenant config, a ~1 MB `post_meeting_webhook.url` (maxLength 2048, a pattern, `format: uri`,
//                       inside a oneOf)
//   oneof-unknown       tenant config, `{"post_meeting_webhook":{"k0":0,…}}`: ~80,000 unknown fields inside a oneOf
// each sent without credentials and with a tenant's API key, alone (--repeat requests one after the other) and 8 at
// once (--rounds rounds of 8 concurrent requests).
//
// Reported per body and variant: the status, the median answer time and the answer's size; the API's CPU time per
// request (prom-client's `convene_process_cpu_seconds_total` before and after: unlike times, it does not grow when
// other work shares the machine; an upper bound, as the probes' and one /metrics read's CPU is in it); and the worst
// event-loop delay of the API while it ran: prom-client's `convene_nodejs_eventloop_lag_max_seconds` (perf_hooks'
// monitorEventLoopDelay in the API process; reading /metrics resets it, so one read before and one after a variant
// gives the worst delay within it), beside the worst time of `GET /readyz` probes sent every 50 ms meanwhile. The
// baseline is the same pair over a few seconds of probes alone, in the same run. Every request has a --timeout
// (seconds); one that times out is reported as "> N s", and the benchmark waits (up to --recover seconds) until the API
// answers `GET /healthz` quickly again before the next body. Once a body has timed out, its other variants are not
// sent (the API would only be busy for minutes more): they are reported as "not sent", as is every later body when the
// API did not recover in time. (Before the bounds of §16 one body could hold the API for many minutes; that
// measurement ran each body in a run of its own, `--bodies <one name>`.)
// Results: BENCHMARKS.md.
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { loadAverage, log, runBench, sleep, startStack, stats } from './stack.ts';

const { values: args } = parseArgs({
  options: {
    repeat: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    timeout: { type: 'string', default: '30' },
    recover: { type: 'string', default: '300' },
    bodies: { type: 'string' },
  },
});
const REPEAT = Number(args.repeat);
const ROUNDS = Number(args.rounds);
const TIMEOUT_MS = Number(args.timeout) * 1000;
const RECOVER_MS = Number(args.recover) * 1000;
const CONCURRENT = 8;
const PROBE_EVERY_MS = 50;
/** Just under the 1 MiB body limit (1,048,576 bytes), so the body is parsed and reaches validation. */
const TARGET_BYTES = 1_040_000;

interface Hostile {
  name: string;
  method: string;
  /** The path, given the tenant's id (its own config) and an absent room. */
  path: (ids: { tenantId: string; roomId: string }) => string;
  body: string;
}

/** `head` + `item` joined by commas as many times as fit + `tail`, just under TARGET_BYTES. */
function fill(head: string, item: (i: number) => string, tail: string): string {
  const parts: string[] = [];
  let size = head.length + tail.length;
  for (let i = 0; ; i++) {
    const next = item(i);
    if (size + next.length + 1 > TARGET_BYTES) break;
    parts.push(next);
    size += next.length + 1;
  }
  return `${head}${parts.join(',')}${tail}`;
}

function hostileBodies(): Hostile[] {
  const depth = Math.floor((TARGET_BYTES - 30) / 2);
  const bulk = ({ roomId }: { roomId: string }) => `/api/v1/rooms/${roomId}/participants/bulk`;
  const config = ({ tenantId }: { tenantId: string }) => `/api/v1/tenants/${tenantId}/config`;
  return [
    { name: 'array-of-numbers', method: 'POST', path: bulk, body: fill('{"participants":[', () => '1', ']}') },
    { name: 'array-of-objects', method: 'POST', path: bulk, body: fill('{"participants":[', () => '{"x":1}', ']}') },
    { name: 'unknown-properties', method: 'POST', path: () => '/api/v1/rooms', body: fill('{"name":"r",', (i) => `"k${i}":0`, '}') },
    { name: 'deep-nesting', method: 'POST', path: () => '/api/v1/rooms', body: `{"name":"r","config":${'['.repeat(depth)}${']'.repeat(depth)}}` },
    {
      name: 'long-string',
      method: 'PATCH',
      path: config,
      body: `{"post_meeting_webhook":{"url":"https://${'a'.repeat(TARGET_BYTES - 60)}"}}`,
    },
    { name: 'oneof-unknown', method: 'PATCH', path: config, body: fill('{"post_meeting_webhook":{', (i) => `"k${i}":0`, '}}') },
  ];
}

interface Answer {
  status: number | 'timeout' | 'error';
  ms: number;
  bytes: number;
}

async function send(url: string, init: RequestInit): Promise<Answer> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    const bytes = (await res.arrayBuffer()).byteLength;
    return { status: res.status, ms: performance.now() - t0, bytes };
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    return { status: timedOut ? 'timeout' : 'error', ms: performance.now() - t0, bytes: 0 };
  }
}

/** GET /readyz every PROBE_EVERY_MS (one at a time) until stop() is called; resolves the probes' times. */
function probe(apiUrl: string): { stop: () => Promise<Answer[]> } {
  const answers: Answer[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      answers.push(await send(`${apiUrl}/readyz`, {}));
      await sleep(PROBE_EVERY_MS);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return answers;
    },
  };
}

/**
 * From the API's /metrics: its worst event-loop delay (ms) since the previous read (prom-client resets it on every
 * read), and the CPU time (ms) it has used so far.
 */
async function apiMetrics(apiUrl: string): Promise<{ loopMs: number; cpuMs: number }> {
  const res = await fetch(`${apiUrl}/metrics`, { signal: AbortSignal.timeout(TIMEOUT_MS) }).catch(() => undefined);
  const text = res?.ok ? await res.text().catch(() => '') : '';
  const value = (name: string) => Number(text.split('\n').find((l) => l.startsWith(`${name} `))?.split(' ')[1] ?? NaN) * 1000;
  return { loopMs: value('convene_nodejs_eventloop_lag_max_seconds'), cpuMs: value('convene_process_cpu_seconds_total') };
}

/** Waits until GET /healthz answers within a second again (a timed-out request may still hold the API). */
async function waitUntilIdle(apiUrl: string): Promise<boolean> {
  const end = performance.now() + RECOVER_MS;
  while (performance.now() < end) {
    const answer = await send(`${apiUrl}/healthz`, {});
    if (answer.status === 200 && answer.ms < 1000) return true;
    await sleep(1000);
  }
  return false;
}

interface Row {
  body: string;
  credentials: string;
  mode: string;
  statuses: string;
  answerMs: string;
  bytes: string;
  loopMs: number;
  probeMs: number;
  cpuMs: number;
}

const ms = (n: number) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(1) : Math.round(n).toString()) : '–');

await runBench(async () => {
  const stack = await startStack({
    name: 'hostile',
    recordingSeconds: 1,
    workers: 0,
    // Nothing here may be refused for its rate: the point is what a refusal by validation costs.
    env: { RATE_LIMIT_PER_MINUTE: '1000000', AUTH_FAILURE_LIMIT_PER_MINUTE: '1000000' },
  });
  const { apiUrl } = stack;
  const tenant = (await stack.call('POST', '/api/v1/tenants', { 'X-Admin-Key': stack.adminKey }, { name: 'Hostile bench' }, 201)).data;
  const ids = { tenantId: tenant.id as string, roomId: randomUUID() };
  const credentials: Array<[string, Record<string, string>]> = [
    ['none', {}],
    ['tenant key', { 'X-API-Key': tenant.api_key as string }],
  ];
  const bodies = hostileBodies().filter((b) => !args.bodies || args.bodies.split(',').includes(b.name));
  log(`API ${apiUrl}; ${cpus().length} CPUs, Node ${process.version}; bodies ${bodies.map((b) => `${b.name} ${b.body.length} B`).join(', ')}`);

  // The baseline: probes alone.
  await apiMetrics(apiUrl);
  const baselineProbes = probe(apiUrl);
  await sleep(3000);
  const baseline = { probes: await baselineProbes.stop(), loopMs: (await apiMetrics(apiUrl)).loopMs };
  const baselineProbeMs = stats(baseline.probes.map((a) => a.ms));
  log(`baseline: GET /readyz median ${ms(baselineProbeMs.p50)} ms, worst ${ms(baselineProbeMs.max)} ms; worst event-loop delay ${ms(baseline.loopMs)} ms`);

  const rows: Row[] = [];
  /** Whether the API is still busy with a timed-out request; false when it did not recover in time. */
  let idle = true;
  let anyTimedOut = false;
  for (const hostile of bodies) {
    if (anyTimedOut && idle) idle = await waitUntilIdle(apiUrl);
    let timedOut = !idle;
    for (const [credentialName, headers] of credentials) {
      for (const mode of ['alone', `${CONCURRENT} at once`]) {
        const row = { body: hostile.name, credentials: credentialName, mode };
        if (timedOut) {
          rows.push({ ...row, statuses: idle ? 'not sent' : 'not sent (API still busy)', answerMs: '–', bytes: '–', loopMs: NaN, probeMs: NaN, cpuMs: NaN });
          continue;
        }
        const init: RequestInit = { method: hostile.method, headers: { ...headers, 'content-type': 'application/json' }, body: hostile.body };
        const url = `${apiUrl}${hostile.path(ids)}`;
        const before = await apiMetrics(apiUrl);
        const probes = probe(apiUrl);
        const answers: Answer[] = [];
        if (mode === 'alone') {
          for (let i = 0; i < REPEAT && !answers.some((a) => a.status === 'timeout'); i++) answers.push(await send(url, init));
        } else {
          for (let r = 0; r < ROUNDS && !answers.some((a) => a.status === 'timeout'); r++) {
            answers.push(...(await Promise.all(Array.from({ length: CONCURRENT }, () => send(url, init)))));
          }
        }
        const probeAnswers = await probes.stop();
        const { loopMs, cpuMs } = await apiMetrics(apiUrl);
        // The API's CPU time per hostile request (the probes' share included: ~1 ms each, see the baseline).
        const cpuPerRequest = (cpuMs - before.cpuMs) / answers.length;
        timedOut = answers.some((a) => a.status === 'timeout');
        anyTimedOut ||= timedOut;
        const statuses = [...new Set(answers.map((a) => String(a.status)))].join(', ');
        const answered = answers.filter((a) => typeof a.status === 'number');
        const probeWorst = Math.max(...probeAnswers.map((a) => a.ms));
        rows.push({
          ...row,
          statuses,
          answerMs: timedOut ? `> ${TIMEOUT_MS / 1000} s` : ms(stats(answered.map((a) => a.ms)).p50),
          bytes: answered.length ? String(stats(answered.map((a) => a.bytes)).p50) : '–',
          loopMs,
          probeMs: probeWorst,
          cpuMs: timedOut ? NaN : cpuPerRequest,
        });
        const last = rows.at(-1)!;
        log(`${hostile.name} / ${credentialName} / ${mode}: ${statuses}, median ${last.answerMs}${timedOut ? '' : ' ms'}, ${last.bytes} B; worst loop delay ${ms(loopMs)} ms, worst /readyz ${ms(probeWorst)} ms`);
      }
    }
  }

  // A timed-out variant's /metrics read timed out too: the loop was held at least that long.
  const loop = (r: Row) => (r.statuses.includes('timeout') && !Number.isFinite(r.loopMs) ? `> ${TIMEOUT_MS / 1000} s` : ms(r.loopMs));
  const ratio = (value: number, base: number) => (Number.isFinite(value) && base > 0 ? (value / base).toFixed(1) : '–');
  const lines = [
    '',
    `baseline (GET /readyz alone, ${baseline.probes.length} probes): median ${ms(baselineProbeMs.p50)} ms, worst ${ms(baselineProbeMs.max)} ms; worst event-loop delay ${ms(baseline.loopMs)} ms`,
    '',
    '| body | credentials | sent | status | answer ms (median) | answer bytes | API CPU ms per request | worst loop delay ms | × baseline | worst /readyz ms | × baseline |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.body} | ${r.credentials} | ${r.mode} | ${r.statuses} | ${r.answerMs} | ${r.bytes} | ${ms(r.cpuMs)} | ${loop(r)} | ${ratio(r.loopMs, baseline.loopMs)} | ${ms(r.probeMs)} | ${ratio(r.probeMs, baselineProbeMs.max)} |`,
    ),
    '',
    `alone: ${REPEAT} requests one after the other; ${CONCURRENT} at once: ${ROUNDS} rounds; ${await loadAverage()} at the end`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
});
