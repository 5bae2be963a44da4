// The API side's Temporal client: one lazy connection (it connects on first use, so the API starts even while
// Temporal is still coming up; /readyz reports it), closed on shutdown.
//
// src/temporal/ is the client side of the Temporal boundary (ARCHITECTURE habit 1): every class that starts or
// signals a workflow from the API lives beside this file (recording-orchestrator, transcription-orchestrator,
// delivery-starter, tenant-purger), behind an interface the services depend on. Ids, signals and queries come from
// workflows/shared.ts; the worker side is src/worker.ts with src/activities/ (createActivities).
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
