// Benchmark (not a test): what one Temporal operation costs the server this project runs, in CPU.
// bench/burst.ts shows that a burst of recordings is bound by CPU, about half of it the Temporal dev server's; this
// says what each building block of a recording's pipeline costs it, so the pipeline's shape can be priced without
// guessing: a workflow started and completed, an activity, a child workflow, a timer.
//
//   npx node bench/temporal-cost.ts [--count 200] [--temporal-store memory|file]
//
// A Temporal dev server (scripts/stack/temporal.ts, as the tests and bench/burst.ts start it: in memory, or the WAL
// file store of `npm run dev`) and one worker in this process with the workflows of bench/temporal-cost/workflows.ts.
// Per shape, --count runs at once (as a burst does); the server's CPU seconds from /proc divided by the count, and
// this process's (the worker's and the client's). The difference between two shapes is the price of what one adds.
// Results: BENCHMARKS.md ("Burst"), docs/scaling.md.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startTemporal } from '../scripts/stack/temporal.ts';
import { searchAttributesFor } from '../workflows/shared.ts';
import { log, runBench } from './stack.ts';

const { values: args } = parseArgs({
  options: { count: { type: 'string', default: '200' }, 'temporal-store': { type: 'string', default: 'memory' } },
});
const COUNT = Number(args.count);
if (!Number.isInteger(COUNT) || COUNT < 1) throw new Error('--count must be a positive integer');
if (!['memory', 'file'].includes(args['temporal-store'])) throw new Error('--temporal-store must be memory or file');

const SHAPES: Array<{ label: string; type: string; args: (id: string) => unknown[] }> = [
  { label: 'workflow (start, 1 task, complete)', type: 'bare', args: () => [] },
  { label: '+ 1 activity', type: 'activities', args: () => [1] },
  { label: '+ 5 activities', type: 'activities', args: () => [5] },
  { label: '+ a child, awaited', type: 'awaitedChild', args: (id) => [id] },
  { label: '+ a child, abandoned', type: 'abandonedChild', args: (id) => [id] },
  { label: '+ a timer that fires', type: 'timer', args: () => [] },
];

/** CPU seconds a process has used (user + system), from /proc. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

void runBench(async () => {
  const root = await mkdtemp(join(tmpdir(), 'convene-bench-temporal-cost-'));
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const server = await startTemporal({ dataDir: root, persistent: args['temporal-store'] === 'file', uiPort: null, stopTimeoutMs: 2000 });
  try {
    const pid = server.pid;
    const connection = await NativeConnection.connect({ address: server.address });
    const worker = await Worker.create({
      connection,
      taskQueue: 'temporal-cost',
      workflowsPath: new URL('./temporal-cost/workflows.ts', import.meta.url).pathname,
      activities: { async noop() {} },
    });
    const running = worker.run();
    const client = new Client({ connection: await Connection.connect({ address: server.address }) });
    const subject = searchAttributesFor({ tenantId: 'bench', recordingId: 'bench' });
    let round = 0;
    const measure = async (shape: (typeof SHAPES)[number], count: number) => {
      round++;
      const serverBefore = cpuSeconds(pid);
      const ownBefore = process.cpuUsage();
      const started = performance.now();
      await Promise.all(
        Array.from({ length: count }, (_, i) => {
          const workflowId = `cost-${round}-${i}`;
          return client.workflow.execute(shape.type, { taskQueue: 'temporal-cost', workflowId, args: shape.args(workflowId), typedSearchAttributes: subject });
        }),
      );
      const own = process.cpuUsage(ownBefore);
      return {
        serverMs: ((cpuSeconds(pid) - serverBefore) * 1000) / count,
        ownMs: (own.user + own.system) / 1000 / count,
        wallMs: performance.now() - started,
      };
    };
    await measure(SHAPES[0], Math.min(COUNT, 50)); // warm-up: bundles loaded, caches filled
    const rows: string[] = [];
    let base = NaN;
    for (const shape of SHAPES) {
      const m = await measure(shape, COUNT);
      if (shape.type === 'bare') base = m.serverMs;
      const added = shape.type === 'bare' ? '' : (m.serverMs - base).toFixed(1);
      rows.push(`| ${shape.label} | ${m.serverMs.toFixed(1)} | ${added} | ${m.ownMs.toFixed(1)} | ${Math.round(m.wallMs)} |`);
      log(`${shape.label}: server ${m.serverMs.toFixed(1)} ms per run`);
    }
    worker.shutdown();
    await running;
    await connection.close();
    console.log(`\ntemporal-cost: ${COUNT} runs per shape at once; Temporal store ${args['temporal-store']}; ${cpus().length} CPUs (${cpus()[0]?.model})`);
    console.log('\n| shape | server CPU ms per run | added to a bare workflow | worker + client CPU ms per run | wall ms for all |');
    console.log('|---|---|---|---|---|');
    for (const row of rows) console.log(row);
  } finally {
    await server.stop();
    await rm(root, { recursive: true, force: true });
  }
});
