// Jest globalSetup: one PostgreSQL, one Temporal dev server and one SeaweedFS for the whole test run, on free ports,
// with their data in a temporary folder. Test files reach them through process.env (jest starts its workers after
// this ran, so they inherit it):
//   TEST_PG_URL            superuser URL of the server's `postgres` database; use createTestDatabase() (database.ts)
//   TEMPORAL_ADDRESS       host:port of the Temporal frontend (namespace `default`)
//   S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_BUCKET, S3_ARCHIVE_BUCKET (both created)
//   TEMPORAL_CLI_PATH, TEMPORAL_TEST_SERVER_PATH   binaries for TestWorkflowEnvironment ({ type: 'existing-path' })
//   WORKFLOW_BUNDLE_PATH   workflows/ bundled once for the run: every worker, spawned (test/helpers/recording-stack.ts)
//                          or in a test file (test/helpers/workflow-bundle.ts), loads it instead of bundling its own
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres, type PostgresServer } from '../../scripts/stack/postgres.ts';
import { startSeaweedfs, type SeaweedfsServer } from '../../scripts/stack/seaweedfs.ts';
import { startTemporal, type TemporalServer } from '../../scripts/stack/temporal.ts';
import { ensureTool } from '../../scripts/tools.ts';
import { writeWorkflowBundle } from '../../src/temporal/workflow-bundle.ts';

const PREFIX = 'convene-test-';

export interface TestStack {
  root: string;
  stop(): Promise<void>;
}

declare global {
  var __conveneTestStack: TestStack | undefined;
}

export default async function globalSetup(): Promise<void> {
  const started = performance.now();
  await removeAbandonedStacks();
  const root = await mkdtemp(join(tmpdir(), PREFIX));
  // PostgreSQL runs as an unprivileged user when we are root: it must be able to reach its folder.
  await chmod(root, 0o755);
  await writeFile(join(root, 'owner.pid'), String(process.pid));

  const accessKeyId = `test-${randomBytes(6).toString('hex')}`;
  const secretAccessKey = randomBytes(24).toString('base64url');
  const buckets = { S3_BUCKET: 'convene-recordings', S3_ARCHIVE_BUCKET: 'convene-archive' };
  const password = randomBytes(12).toString('hex');
  const results = await Promise.allSettled([
    withRetries('PostgreSQL', () => startPostgres({ dataDir: join(root, 'postgres'), password, durable: false })),
    withRetries('Temporal', () =>
      startTemporal({ dataDir: join(root, 'temporal'), persistent: false, uiPort: null, stopTimeoutMs: 2000 }),
    ),
    withRetries('SeaweedFS', () =>
      startSeaweedfs({
        dataDir: join(root, 'seaweedfs'),
        accessKeyId,
        secretAccessKey,
        buckets: Object.values(buckets),
        // Its graceful stop takes 2 s; this data is deleted right after.
        stopTimeoutMs: 300,
      }),
    ),
    ensureTool('temporal-test-server'),
    // A few seconds of CPU once here instead of in each of the run's dozens of workers.
    writeWorkflowBundle(join(root, 'workflow-bundle.js')),
  ]);
  const [postgres, temporal, s3, testServer] = results;
  const stop = async () => {
    await Promise.all(
      [postgres, temporal, s3].map((r) =>
        r.status === 'fulfilled' ? (r.value as { stop(): Promise<void> }).stop() : undefined,
      ),
    );
    await rm(root, { recursive: true, force: true });
  };
  const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failures.length > 0) {
    await stop();
    throw new Error(`The test stack did not start:\n${failures.map((f) => String(f.reason?.message ?? f.reason)).join('\n\n')}`);
  }

  const pg = (postgres as PromiseFulfilledResult<PostgresServer>).value;
  const tp = (temporal as PromiseFulfilledResult<TemporalServer>).value;
  const store = (s3 as PromiseFulfilledResult<SeaweedfsServer>).value;
  Object.assign(process.env, {
    TEST_PG_URL: pg.url('postgres'),
    TEMPORAL_ADDRESS: tp.address,
    S3_ENDPOINT: store.endpoint,
    S3_REGION: store.region,
    S3_ACCESS_KEY_ID: store.accessKeyId,
    S3_SECRET_ACCESS_KEY: store.secretAccessKey,
    ...buckets,
    TEMPORAL_CLI_PATH: await ensureTool('temporal'),
    TEMPORAL_TEST_SERVER_PATH: (testServer as PromiseFulfilledResult<string>).value,
    WORKFLOW_BUNDLE_PATH: join(root, 'workflow-bundle.js'),
  });
  globalThis.__conveneTestStack = { root, stop };
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(`\n[harness] PostgreSQL, Temporal and SeaweedFS ready in ${seconds} s (${root})\n`);
}

/**
 * Free ports are chosen by asking the OS and released before the server binds them, so a parallel test run (or a
 * server picking its own internal ports) can take one in between. A server that fails to start gets new ports.
 */
async function withRetries<T>(name: string, start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if ((error as Error).name !== 'StartError' || attempt >= attempts) throw error;
      const firstLine = (error as Error).message.split('\n')[0];
      process.stderr.write(`[harness] ${name} did not start (attempt ${attempt} of ${attempts}), retrying: ${firstLine}\n`);
    }
  }
}

/** Temp folders of earlier runs whose jest process died without its teardown (SIGKILL, crash). */
async function removeAbandonedStacks(): Promise<void> {
  const entries = await readdir(tmpdir()).catch(() => [] as string[]);
  await Promise.all(
    entries
      .filter((name) => name.startsWith(PREFIX))
      .map(async (name) => {
        const dir = join(tmpdir(), name);
        const owner = Number(await readFile(join(dir, 'owner.pid'), 'utf8').catch(() => 'NaN'));
        if (Number.isInteger(owner) && owner > 0 && !isAlive(owner)) await rm(dir, { recursive: true, force: true });
      }),
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
