// The API side's Temporal client: one lazy connection (it connects on first use, so the API starts even while
// Temporal is still coming up; /readyz reports it), closed on shutdown.
import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config.ts';

export interface TemporalClient {
  client: Client;
  close(): Promise<void>;
}

export function createTemporalClient(config: Config['temporal']): TemporalClient {
  const connection = Connection.lazy({ address: config.address });
  const client = new Client({ connection, namespace: config.namespace });
  return { client, close: () => connection.close() };
}
