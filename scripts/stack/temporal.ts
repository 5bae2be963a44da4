// The Temporal development server (`temporal server start-dev`): a real Temporal with SQLite persistence and the
// Web UI in one process.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_NAMES } from '../../workflows/shared.ts';
import { ensureTool } from '../tools.ts';
import { freePort, LOOPBACK } from './ports.ts';
import { launch, type ExitStatus, waitUntilReady } from './process.ts';

export interface TemporalOptions {
  /** Holds `temporal.log`, and `temporal.db` (SQLite) when persistent. */
  dataDir: string;
  /** false: state lives in memory and dies with the server (tests). Default true. */
  persistent?: boolean;
  /**
   * SQLite pragmas of the persistent store (`--sqlite-pragma`; the CLI allows journal_mode and synchronous). Default
   * FILE_STORE_PRAGMAS; these override it.
   */
  sqlitePragmas?: Record<string, string>;
  /** Added to the server's environment (e.g. the Go runtime's GOGC, GOMAXPROCS; bench/burst.ts --temporal-env). */
  env?: Record<string, string>;
  /** Dynamic config values (`--dynamic-config-value KEY=JSON`) beside DEV_DYNAMIC_CONFIG; these override it. */
  dynamicConfig?: Record<string, string>;
  /** gRPC frontend port; 0 or absent: a free port. */
  port?: number;
  /** Web UI port; 0 or absent: a free port; null: no Web UI. */
  uiPort?: number | null;
  /** Created at start-up besides `default`. */
  namespaces?: string[];
  startTimeoutMs?: number;
  /** How long stop() waits after SIGTERM before SIGKILL; default 15 s. Throw-away test servers need no grace. */
  stopTimeoutMs?: number;
}

export interface TemporalServer {
  /** host:port of the gRPC frontend, as TEMPORAL_ADDRESS expects it. */
  address: string;
  uiUrl: string | undefined;
  logFile: string;
  /** The server's process id (bench/temporal-cost.ts reads its CPU time). */
  pid: number;
  /** Settles when the server process has exited, for whatever reason. */
  exited: Promise<ExitStatus>;
  stop(): Promise<void>;
}

/**
 * The file store in write-ahead-log mode, synced at checkpoints rather than at every commit: with SQLite's defaults
 * (a rollback journal, a sync per commit) the dev server spent twice the CPU on a burst of 50 recordings, which took
 * 17.6–30.2 s instead of 8.1–8.6 s (bench/burst.ts --temporal-store file, BENCHMARKS.md "Burst"). A crash of the process loses
 * nothing; a crash of the machine may lose the last moments of a development server's state, never corrupt it.
 */
export const FILE_STORE_PRAGMAS: Readonly<Record<string, string>> = { journal_mode: 'wal', synchronous: 'normal' };

/** Dynamic config of every dev server this project starts (values are JSON). */
export const DEV_DYNAMIC_CONFIG: Readonly<Record<string, string>> = {};

export async function startTemporal(options: TemporalOptions): Promise<TemporalServer> {
  const binary = await ensureTool('temporal');
  await mkdir(options.dataDir, { recursive: true });
  const port = options.port || (await freePort());
  const uiPort = options.uiPort === null ? undefined : options.uiPort || (await freePort());
  const namespaces = [...new Set(['default', ...(options.namespaces ?? [])])];
  const logFile = join(options.dataDir, 'temporal.log');
  const args = ['server', 'start-dev', '--ip', LOOPBACK, '--port', String(port), '--log-level', 'warn'];
  args.push(...(uiPort === undefined ? ['--headless'] : ['--ui-port', String(uiPort)]));
  if (options.persistent ?? true) {
    args.push('--db-filename', join(options.dataDir, 'temporal.db'));
    for (const [pragma, value] of Object.entries({ ...FILE_STORE_PRAGMAS, ...options.sqlitePragmas })) {
      args.push('--sqlite-pragma', `${pragma}=${value}`);
    }
  }
  for (const [key, value] of Object.entries({ ...DEV_DYNAMIC_CONFIG, ...options.dynamicConfig })) {
    args.push('--dynamic-config-value', `${key}=${value}`);
  }
  for (const namespace of namespaces) if (namespace !== 'default') args.push('--namespace', namespace);
  // docs/decisions.md §13: every workflow carries these Keyword attributes; the server must know them before a start uses them.
  for (const name of Object.values(SEARCH_ATTRIBUTE_NAMES)) args.push('--search-attribute', `${name}=Keyword`);

  const proc = launch({
    name: 'temporal',
    command: binary,
    args,
    logFile,
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
    stopSignal: 'SIGTERM',
    stopTimeoutMs: options.stopTimeoutMs,
  });
  const address = `${LOOPBACK}:${port}`;
  await waitUntilReady(proc, () => describeNamespaces(address, namespaces), {
    timeoutMs: options.startTimeoutMs ?? 60_000,
    intervalMs: 200,
    logFile,
  });
  return {
    address,
    uiUrl: uiPort === undefined ? undefined : `http://${LOOPBACK}:${uiPort}`,
    logFile,
    pid: proc.pid,
    exited: proc.exited,
    stop: () => proc.stop(),
  };
}

/** Ready means what a client needs: the frontend answers and the namespaces exist. */
async function describeNamespaces(address: string, namespaces: string[]): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: '2s' });
  try {
    for (const namespace of namespaces) {
      await connection.workflowService.describeNamespace({ namespace });
    }
  } finally {
    await connection.close();
  }
}
