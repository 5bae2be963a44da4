import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../config.ts';

export function createS3Client(config: Config['s3']): S3Client {
  return new S3Client({
    endpoint: config.endpoint,
    region: config.region,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    // SeaweedFS, MinIO and most self-hosted stores address buckets by path, not by subdomain.
    forcePathStyle: true,
  });
}

/** Creates the recordings and archive buckets when they are missing (idempotent; safe from several instances). */
export async function ensureBuckets(s3: S3Client, config: Config['s3']): Promise<void> {
  for (const bucket of [config.bucket, config.archiveBucket]) {
    try {
      await s3.send(new HeadBucketCommand({ Bucket: bucket }));
    } catch {
      await s3.send(new CreateBucketCommand({ Bucket: bucket })).catch((err: { name?: string }) => {
        if (err.name !== 'BucketAlreadyOwnedByYou' && err.name !== 'BucketAlreadyExists') throw err;
      });
    }
  }
}
