import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../config.ts';
import { SpanKind, tracingActive, withSpan } from '../tracing/spans.ts';

export function createS3Client(config: Config['s3']): S3Client {
  const client = new S3Client({
    endpoint: config.endpoint,
    region: config.region,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    // SeaweedFS, MinIO and most self-hosted stores address buckets by path, not by subdomain.
    forcePathStyle: true,
  });
  if (tracingActive()) traceRequests(client);
  return client;
}

/**
 * With tracing on (docs/decisions.md §12), each request to the store is a client span of the active trace: added at the
 * deserialize step, so it wraps one HTTP exchange (each retry is its own span) and a presigned link, which is
 * made without a request, is none.
 */
function traceRequests(client: S3Client): void {
  client.middlewareStack.add(
    (next, context) => (args) => {
      const input = args.input as { Bucket?: string; Key?: string };
      const operation = (context.commandName ?? 'S3Command').replace(/Command$/, '');
      const attributes = { 'rpc.system': 'aws-api', 'rpc.service': 'S3', 'rpc.method': operation, 'aws.s3.bucket': input.Bucket ?? '', 'aws.s3.key': input.Key ?? '' };
      return withSpan(`S3.${operation}`, { kind: SpanKind.CLIENT, attributes }, () => next(args));
    },
    { step: 'deserialize', name: 'conveneTraceSpan' },
  );
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
