// Supervises the child processes of the dev stack and the test harness: output to a log file (or to a line
// callback), a stop() that waits for the exit, and children that die with us, even when we are SIGKILLed.
//
// On Linux each child starts through util-linux `setpriv --pdeathsig`, so the kernel signals it when our process
// dies for any reason. The child also gets its own process group, so a terminal Ctrl-C reaches only us and we stop
// the children in order. Without setpriv (macOS), children share our process group and an 'exit' hook stops them.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface LaunchOptions {
  /** Used in messages, e.g. "postgres". */
  name: string;
  command: string;
  args: string[];
  /** Where stdout and stderr go; truncated at launch. Either this or onLine. */
  logFile?: string;
  /** Receives each output line instead of a log file (used for the API and worker in `npm run dev`). */
  onLine?: (line: string) => void;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Run as another user (PostgreSQL refuses to run as root). */
  runAs?: { uid: number; gid: number };
  /** Signal for a graceful stop, also sent if we die. Default SIGTERM. */
  stopSignal?: NodeJS.Signals;
  /** After this, stop() escalates to SIGKILL. Default 15 s. */
  stopTimeoutMs?: number;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  /** Settles when the process has exited (never rejects). */
  readonly exited: Promise<ExitStatus>;
  hasExited(): boolean;
  /** Graceful stop, SIGKILL after the timeout; resolves once the process is gone. Safe to call twice. */
  stop(): Promise<void>;
  /** The last lines of output, for error messages. */
  tail(lines?: number): string;
}

/** A server process that exited or never answered during start-up; the message carries its last output. */
export class StartError extends Error {
  override name = 'StartError';
}

/** Started and not yet exited, with the signal that stops each. */
const live = new Map<ManagedProcess, NodeJS.Signals>();
let exitHookInstalled = false;

export function launch(options: LaunchOptions): ManagedProcess {
  if (!options.logFile === !options.onLine) throw new Error('launch(): give exactly one of logFile and onLine');
  const stopSignal = options.stopSignal ?? 'SIGTERM';
  const stopTimeoutMs = options.stopTimeoutMs ?? 15_000;
  const pdeathsig = parentDeathSignalSupported();

  let command = options.command;
  let args = options.args;
  if (pdeathsig) {
    const identity = options.runAs
      ? [`--reuid=${options.runAs.uid}`, `--regid=${options.runAs.gid}`, '--clear-groups']
      : [];
    args = [...identity, `--pdeathsig=${stopSignal.replace(/^SIG/, '')}`, '--', command, ...args];
    command = 'setpriv';
  }

  const logFd = options.logFile ? openSync(options.logFile, 'w') : undefined;
  const recent: string[] = [];
  let child: ChildProcess;
  try {
    child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: logFd === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', logFd, logFd],
      detached: pdeathsig,
      ...(options.runAs && !pdeathsig ? { uid: options.runAs.uid, gid: options.runAs.gid } : {}),
    });
  } finally {
    // The child holds its own copy of the descriptor.
    if (logFd !== undefined) closeSync(logFd);
  }

  if (options.onLine) {
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
        recent.push(line);
        if (recent.length > 200) recent.shift();
        options.onLine?.(line);
      });
    }
  }

  let exitedFlag = false;
  let spawnError: Error | undefined;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('error', (error) => {
      // Spawning failed (e.g. the binary is missing); no 'exit' follows.
      spawnError = error;
      exitedFlag = true;
      resolve({ code: null, signal: null });
    });
    child.once('exit', (code, signal) => {
      exitedFlag = true;
      resolve({ code, signal });
    });
  });

  let stopping: Promise<void> | undefined;
  const managed: ManagedProcess = {
    name: options.name,
    pid: child.pid ?? -1,
    exited,
    hasExited: () => exitedFlag,
    stop() {
      stopping ??= (async () => {
        if (!exitedFlag) {
          child.kill(stopSignal);
          const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
          await exited;
          clearTimeout(timer);
        }
        live.delete(managed);
      })();
      return stopping;
    },
    tail(lines = 40) {
      const text = options.logFile ? tailOfFile(options.logFile, lines) : recent.slice(-lines).join('\n');
      return spawnError ? `${text}\n${spawnError.message}`.trim() : text;
    },
  };
  void exited.then(() => live.delete(managed));
  if (managed.pid > 0) live.set(managed, stopSignal);
  installExitHook();
  return managed;
}

/** Stops every process this module started and that still runs, in parallel. */
export async function stopAll(): Promise<void> {
  await Promise.all([...live.keys()].map((p) => p.stop()));
}

/**
 * Polls `probe` until it succeeds. Fails early with the process's last output if it exits first, or after the
 * timeout (then the process is stopped).
 */
export async function waitUntilReady(
  proc: ManagedProcess,
  probe: () => Promise<unknown>,
  { timeoutMs, intervalMs = 100, logFile }: { timeoutMs: number; intervalMs?: number; logFile?: string },
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    if (proc.hasExited()) {
      const status = await proc.exited;
      throw startError(proc, `exited (${describeExit(status)}) before it was ready`, logFile);
    }
    try {
      await probe();
      return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      await proc.stop();
      const why = lastError instanceof Error ? lastError.message : String(lastError);
      throw startError(proc, `was not ready after ${Math.round(timeoutMs / 1000)} s (last check: ${why})`, logFile);
    }
    await Promise.race([new Promise((r) => setTimeout(r, intervalMs)), proc.exited]);
  }
}

export function startError(proc: ManagedProcess, what: string, logFile?: string): StartError {
  const source = logFile ? ` (${logFile})` : '';
  return new StartError(`${proc.name} ${what}.\n--- last output${source} ---\n${proc.tail()}\n---`);
}

export function describeExit({ code, signal }: ExitStatus): string {
  return signal ? `signal ${signal}` : `exit code ${code}`;
}

export function tailOfFile(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

let pdeathsigSupport: boolean | undefined;

function parentDeathSignalSupported(): boolean {
  if (pdeathsigSupport === undefined) {
    pdeathsigSupport = false;
    if (process.platform === 'linux' && process.env.CONVENE_NO_SETPRIV !== '1') {
      try {
        execFileSync('setpriv', ['--pdeathsig=TERM', '--', 'true'], { stdio: 'ignore' });
        pdeathsigSupport = true;
      } catch {
        // util-linux older than 2.33 or absent: fall back to the 'exit' hook.
      }
    }
  }
  return pdeathsigSupport;
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Only synchronous work is possible here: signal what still runs; the children finish shutting down alone.
  process.on('exit', () => {
    for (const [proc, signal] of live) {
      if (proc.hasExited()) continue;
      try {
        process.kill(proc.pid, signal);
      } catch {
        // Already gone.
      }
    }
  });
}
