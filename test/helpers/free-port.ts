// A port nobody listens on right now, for a server a child process must be told about before it starts (the
// development media server's URL in the worker's OPENAI_BASE_URL, the worker's WORKER_METRICS_PORT).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
