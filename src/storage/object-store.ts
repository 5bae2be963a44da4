// The object-store port (recordings' permanent storage) on @aws-sdk/client-s3: SeaweedFS in development and tests,
// any S3-compatible store in production. Uploads stream (multipart, a bounded number of parts in memory), downloads
// are presigned URLs, archive moves a file to the archive bucket.
import {
  AbortMultipartUploadCommand,
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';
import type { Config } from '../config.ts';

export interface ObjectLocation {
  bucket: string;
  key: string;
}

export interface StoredObject {
  sizeBytes: number;
  contentType: string | undefined;
}

export interface UploadInput {
  key: string;
  body: Readable;
  contentType: string;
  /** Called as parts complete, with the bytes sent so far (activities heartbeat with it). */
  onProgress?: (bytesSent: number) => void;
  signal?: AbortSignal;
}

export interface ObjectStore {
  /** Names the storage in download answers (`provider`). */
  readonly provider: string;
  readonly bucket: string;
  readonly archiveBucket: string;
  /** Streams `body` into the primary bucket as a multipart upload; memory stays bounded whatever the size. */
  upload(input: UploadInput): Promise<ObjectLocation & { sizeBytes: number }>;
  /** A GET URL that works without credentials for `expiresInSeconds` (default one hour). */
  presignGet(location: ObjectLocation, options?: { expiresInSeconds?: number; fileName?: string }): Promise<string>;
  /** Copies the object to the archive bucket, then removes the primary copy. Safe to repeat. */
  archive(key: string): Promise<ObjectLocation>;
  /** Removes the object; a missing object is not an error. */
  delete(location: ObjectLocation): Promise<void>;
  /** The object's size and type, or null when it does not exist. */
  head(location: ObjectLocation): Promise<StoredObject | null>;
  /**
   * The object (or the byte range `start`..`end`, end exclusive) as a stream: read as it is consumed, never whole in
   * memory. Null when the object does not exist.
   */
  open(location: ObjectLocation, range?: { start: number; end: number }, signal?: AbortSignal): Promise<Readable | null>;
  /** Keys under a prefix (at most 1000), for operators and tests. */
  list(bucket: string, prefix: string): Promise<string[]>;
  /** Deletes every object under `prefix` in both buckets (all pages); returns how many. Safe to repeat. */
  deletePrefix(prefix: string): Promise<number>;
  /** Aborts unfinished multipart uploads of `key` (left behind by a worker that died mid-upload). */
  abortIncompleteUploads(key: string): Promise<number>;
}

/** 8 MiB parts, two in flight: about 16–32 MiB of buffers per upload, for a file of any size. */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;

export class S3ObjectStore implements ObjectStore {
  readonly provider = 's3';
  readonly bucket: string;
  readonly archiveBucket: string;
  readonly #s3: S3Client;

  constructor(s3: S3Client, config: Pick<Config['s3'], 'bucket' | 'archiveBucket'>) {
    this.#s3 = s3;
    this.bucket = config.bucket;
    this.archiveBucket = config.archiveBucket;
  }

  async upload(input: UploadInput): Promise<ObjectLocation & { sizeBytes: number }> {
    let sizeBytes = 0;
    // Counted on the way in, so the size is what was actually sent, whatever the source claimed.
    input.body.on('data', (chunk: Buffer) => {
      sizeBytes += chunk.length;
    });
    const upload = new Upload({
      client: this.#s3,
      params: { Bucket: this.bucket, Key: input.key, Body: input.body, ContentType: input.contentType },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    if (input.onProgress) upload.on('httpUploadProgress', (p) => input.onProgress!(p.loaded ?? 0));
    const onAbort = () => void upload.abort().catch(() => {});
    input.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await upload.done();
    } finally {
      input.signal?.removeEventListener('abort', onAbort);
    }
    return { bucket: this.bucket, key: input.key, sizeBytes };
  }

  async presignGet(location: ObjectLocation, options: { expiresInSeconds?: number; fileName?: string } = {}): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: location.bucket,
      Key: location.key,
      ...(options.fileName ? { ResponseContentDisposition: `attachment; filename="${options.fileName}"` } : {}),
    });
    return getSignedUrl(this.#s3, command, { expiresIn: options.expiresInSeconds ?? 3600 });
  }

  async archive(key: string): Promise<ObjectLocation> {
    const target = { bucket: this.archiveBucket, key };
    // Repeatable: after a crash between copy and delete, the primary copy is gone or the archive copy exists.
    if (await this.head({ bucket: this.bucket, key })) {
      await this.#s3.send(
        new CopyObjectCommand({
          Bucket: this.archiveBucket,
          Key: key,
          CopySource: `${this.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
        }),
      );
      if (!(await this.head(target))) throw new Error(`archive copy of ${key} is missing after CopyObject`);
      await this.delete({ bucket: this.bucket, key });
    } else if (!(await this.head(target))) {
      throw new Error(`cannot archive ${key}: no copy in ${this.bucket} or ${this.archiveBucket}`);
    }
    return target;
  }

  async delete(location: ObjectLocation): Promise<void> {
    await this.#s3.send(new DeleteObjectCommand({ Bucket: location.bucket, Key: location.key }));
  }

  async head(location: ObjectLocation): Promise<StoredObject | null> {
    try {
      const head = await this.#s3.send(new HeadObjectCommand({ Bucket: location.bucket, Key: location.key }));
      return { sizeBytes: head.ContentLength ?? 0, contentType: head.ContentType };
    } catch (err) {
      const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return null;
      throw err;
    }
  }

  async open(location: ObjectLocation, range?: { start: number; end: number }, signal?: AbortSignal): Promise<Readable | null> {
    try {
      const answer = await this.#s3.send(
        new GetObjectCommand({
          Bucket: location.bucket,
          Key: location.key,
          ...(range ? { Range: `bytes=${range.start}-${range.end - 1}` } : {}),
        }),
        signal ? { abortSignal: signal } : {},
      );
      return answer.Body as Readable;
    } catch (err) {
      const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return null;
      throw err;
    }
  }

  async list(bucket: string, prefix: string): Promise<string[]> {
    const answer = await this.#s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
    return (answer.Contents ?? []).map((o) => o.Key!).filter(Boolean);
  }

  async deletePrefix(prefix: string): Promise<number> {
    let removed = 0;
    for (const bucket of [this.bucket, this.archiveBucket]) {
      // Each listing returns at most 1,000 keys: list again until nothing is left.
      for (let keys = await this.list(bucket, prefix); keys.length > 0; keys = await this.list(bucket, prefix)) {
        for (const key of keys) await this.delete({ bucket, key });
        removed += keys.length;
      }
    }
    return removed;
  }

  async abortIncompleteUploads(key: string): Promise<number> {
    let aborted = 0;
    try {
      const answer = await this.#s3.send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: key }));
      for (const upload of answer.Uploads ?? []) {
        if (upload.Key !== key || !upload.UploadId) continue;
        await this.#s3.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: upload.UploadId }));
        aborted += 1;
      }
    } catch {
      // Housekeeping only: a store without ListMultipartUploads still works, its stale parts just linger.
    }
    return aborted;
  }
}
