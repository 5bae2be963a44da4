// Real API processes (`node src/main.ts api`) for the hardening and fault tests, as test/integration/realtime/
// multi-instance.test.ts spawns them: each on a free port, against a database URL the test chooses.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface ApiProcess {
  baseUrl: string;
  proc: ChildProcess;
  output(): string;
  call(method: string, path: string, headers?: Record<string, string>, body?: unknown): Promise<{ status: number; headers: Headers; body: any }>;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export async function startApiProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<ApiProcess> {
  const port = await freePort();
  let output = '';
  const proc = spawn(process.execPath, ['src/main.ts', 'api'], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', PORT: String(port), DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const api: ApiProcess = {
    baseUrl,
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
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGTERM');
      await exited;
    },
  };
  for (let i = 0; i < 300; i++) {
    if (proc.exitCode !== null) throw new Error(`API process exited: ${output}`);
    if (await fetch(`${baseUrl}/healthz`).then((r) => r.ok, () => false)) return api;
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill('SIGKILL');
  throw new Error(`API process did not become healthy: ${output}`);
}
