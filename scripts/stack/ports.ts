// Free TCP ports from the OS, so parallel test runs (several engineers on one machine) never fight over a port.
import { createServer } from 'node:net';

export const LOOPBACK = '127.0.0.1';

// Ports this process already handed out: the OS may offer a just-closed port again before its service binds it.
const handedOut = new Set<number>();

export async function freePort(host = LOOPBACK): Promise<number> {
  for (;;) {
    const port = await listenAndClose(0, host);
    if (port !== undefined && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/** A free port `p` whose partner `p + offset` is free too (SeaweedFS derives some gRPC ports that way). */
export async function freePortWithPartner(offset: number, host = LOOPBACK): Promise<number> {
  for (;;) {
    const port = await freePort(host);
    const partner = port + offset;
    if (partner <= 65535 && !handedOut.has(partner) && (await isPortFree(partner, host))) {
      handedOut.add(partner);
      return port;
    }
  }
}

export async function isPortFree(port: number, host = LOOPBACK): Promise<boolean> {
  return (await listenAndClose(port, host)) !== undefined;
}

function listenAndClose(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen({ port, host, exclusive: true }, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}
