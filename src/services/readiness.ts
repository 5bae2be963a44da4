import { HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { Connection } from '@temporalio/client';
import type { Config } from '../config.ts';
import type { Orm } from '../db/orm.ts';
import type { ReadinessChecks } from '../modules/system/system.routes.ts';

/**
 * What GET /readyz asks: can we reach the database, Temporal and the object store right now. Temporal is asked over a
 * short-lived connection of its own: the API's lazy client connection cannot tell "down now" from "never connected",
 * and a probe must see Temporal come back.
 */
export function readinessChecks(deps: { config: Config; orm: Orm; s3: S3Client }): ReadinessChecks {
  return {
    database: async () => {
      await deps.orm.em.fork().getConnection().execute('select 1');
    },
    temporal: async () => {
      const connection = await Connection.connect({ address: deps.config.temporal.address, connectTimeout: 2000 });
      try {
        await connection.workflowService.getSystemInfo({});
      } finally {
        await connection.close();
      }
    },
    storage: async () => {
      await deps.s3.send(new HeadBucketCommand({ Bucket: deps.config.s3.bucket }));
    },
  };
}
