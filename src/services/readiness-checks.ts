import { HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { Connection } from '@temporalio/client';
import type { Config } from '../config.ts';
import type { Orm } from '../db/orm.ts';
import type { ReadinessChecks } from '../modules/system/readiness.ts';

/**
 * What GET /readyz asks: can we reach the database, Temporal and the object store right now. Temporal is asked over a
 * short-lived connection of its own: the API's lazy client connection cannot tell "down now" from "never connected",
 * and a probe must see Temporal come back. Each check stops when its signal aborts, so a dependency that hangs holds no
 * connection or request beyond the probe's time limit (src/modules/system/readiness.ts).
 */
export function readinessChecks(deps: { config: Config; orm: Orm; s3: S3Client }): ReadinessChecks {
  return {
    database: async () => {
      await deps.orm.em.fork().getConnection().execute('select 1');
    },
    temporal: async (signal) => {
      const connection = await Connection.connect({ address: deps.config.temporal.address, connectTimeout: 2000 });
      try {
        await connection.withAbortSignal(signal, () => connection.workflowService.getSystemInfo({}));
      } finally {
        await connection.close();
      }
    },
    storage: async (signal) => {
      await deps.s3.send(new HeadBucketCommand({ Bucket: deps.config.s3.bucket }), { abortSignal: signal });
    },
  };
}
