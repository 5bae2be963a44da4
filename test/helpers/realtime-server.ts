import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app.ts';
import type { AuthFailureLimiter } from '../../src/http/address-limit.ts';
import { attachGateway, type Gateway, type GatewayOptions } from '../../src/realtime/gateway.ts';
import type { EmptyRoomTimer } from '../../src/realtime/realtime.ports.ts';
import type { Services } from '../../src/services/container.ts';

export interface RealtimeServer {
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  /** ws://127.0.0.1:<port>/api/v1/ws */
  wsUrl: string;
  gateway: Gateway;
  close(): Promise<void>;
}

/** The app and the WebSocket gateway on one HTTP server, listening on a free port, as `main.ts api` assembles them. */
export async function startRealtimeServer(
  services: Services,
  options: GatewayOptions & { timer?: EmptyRoomTimer; authFailures?: AuthFailureLimiter } = {},
): Promise<RealtimeServer> {
  const server = createServer(createApp(services));
  const gateway = attachGateway(
    server,
    {
      orm: services.orm,
      tokens: services.tokens,
      tenants: services.tenants,
      wsOriginPatterns: services.config.wsOriginPatterns,
      bus: services.roomBus,
      timer: options.timer ?? services.emptyRoomTimer,
      logger: services.logger,
      authFailures: options.authFailures,
    },
    // Tests connect from loopback many times a minute: a generous upgrade limit unless a test sets its own. Presence
    // is counted as the services count it.
    { upgradesPerAddressPerMinute: 1_000_000, presenceStaleAfterSeconds: services.config.ws.presenceStaleAfterSeconds, ...options },
  );
  await services.roomBus.listen();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/api/v1/ws`,
    gateway,
    async close() {
      await gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
