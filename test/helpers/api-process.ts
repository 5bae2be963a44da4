// Real API processes (`node src/main.ts api`) for the multi-instance, hardening and fault tests: each on a free port,
// against a database URL the test chooses, resolved once /healthz answers.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ApiProcess {
  baseUrl: string;
  wsUrl: string;
  proc: ChildProcess;
  output(): string;
  call(method: string, path: string, headers?: Record<string, string>, body?: unknown): Promise<{ status: number; headers: Headers; body: any }>;
  /** Resolves once the process has exited (however it was stopped). */
  exited(): Promise<void>;
  /** SIGTERM (a graceful shutdown), then waits for the exit. */
  stop(): Promise<void>;
}

export async function startApiProcess(databaseUrl: string, env: Record<string, string> = {}, name = 'API process'): Promise<ApiProcess> {
  const port = await freePort();
  let output = '';
  const proc = spawn(process.execPath, ['src/main.ts', 'api'], {
    cwd: ROOT,
    // A generous per-address limit of failed credentials: the tests call from loopback (see test-app.ts).
    env: { ...process.env, NODE_ENV: 'test', PORT: String(port), DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', AUTH_FAILURE_LIMIT_PER_MINUTE: '1000000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const exited = (): Promise<void> =>
    proc.exitCode !== null || proc.signalCode !== null ? Promise.resolve() : new Promise((resolve) => proc.once('exit', () => resolve()));
  const api: ApiProcess = {
    baseUrl,
    wsUrl: `ws://127.0.0.1:${port}/api/v1/ws`,
    proc,
    output: () => output,
    async call(method, path, headers = {}, body) {
      const res = await fetch(baseUrl + path, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
    },
    exited,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited();
    },
  };
  for (let i = 0; i < 300; i++) {
    if (proc.exitCode !== null) throw new Error(`${name} exited: ${output}`);
    if (await fetch(`${baseUrl}/healthz`).then((r) => r.ok, () => false)) return api;
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill('SIGKILL');
  throw new Error(`${name} did not become healthy: ${output}`);
}
