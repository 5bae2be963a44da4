// The harness's SeaweedFS as an S3 client configuration, and throw-away buckets for tests that need their own.
import { randomUUID } from 'node:crypto';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { harnessEnv } from './env.ts';

export function testS3Config(): S3ClientConfig {
  return {
    endpoint: harnessEnv('S3_ENDPOINT'),
    region: harnessEnv('S3_REGION'),
    forcePathStyle: true,
    credentials: {
      accessKeyId: harnessEnv('S3_ACCESS_KEY_ID'),
      secretAccessKey: harnessEnv('S3_SECRET_ACCESS_KEY'),
    },
  };
}

export interface TestBucket {
  name: string;
  /** Empties and deletes the bucket. */
  drop(): Promise<void>;
}

export async function createTestBucket(client: S3Client): Promise<TestBucket> {
  const name = `test-${randomUUID()}`;
  await client.send(new CreateBucketCommand({ Bucket: name }));
  return {
    name,
    async drop() {
      for (;;) {
        const page = await client.send(new ListObjectsV2Command({ Bucket: name }));
        const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
        if (keys.length === 0) break;
        await client.send(new DeleteObjectsCommand({ Bucket: name, Delete: { Objects: keys } }));
      }
      await client.send(new DeleteBucketCommand({ Bucket: name }));
    },
  };
}
