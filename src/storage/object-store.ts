// The object-store port (recordings' permanent storage) on @aws-sdk/client-s3: SeaweedFS in development and tests,
// any S3-compatible store in production. Uploads stream (multipart through a fixed set of reused part buffers),
// downloads are presigned URLs, archive moves a file to the archive bucket.
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  type CompletedPart,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
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
  /**
   * Copies the object to the archive bucket and keeps the primary copy (Archive Recording removes it once the row says
   * `archived`, docs/decisions.md §15). Safe to repeat: an archive copy already there is enough when the primary one is gone.
   */
  copyToArchive(key: string): Promise<ObjectLocation>;
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

/**
 * 5 MiB parts (S3's smallest; 10,000 parts make 48.8 GiB, above MAX_RECORDING_BYTES), two in flight while a third
 * fills: the upload's buffers are these three, allocated once per upload (on demand: a small file touches only what it
 * fills) and reused for every part. So an upload holds at most 3 × 5 = 15 MiB whatever the file's size (BENCHMARKS.md, "Ingesting a large recording into S3").
 * What else the process holds while the bytes flow is the source's chunks on their way through (a download's socket
 * reads, and fetch's copy of each): garbage that V8 reclaims once about 64 MiB of such external memory has
 * accumulated. `@aws-sdk/lib-storage`'s Upload, used before, also built every 8 MiB part anew with `Buffer.concat`.
 */
export const PART_SIZE = 5 * 1024 * 1024;
export const PARTS_IN_FLIGHT = 2;
const PART_BUFFERS = PARTS_IN_FLIGHT + 1;

export class S3ObjectStore implements ObjectStore {
  readonly provider = 's3';
  readonly bucket: string;
  readonly archiveBucket: string;
  private readonly s3: S3Client;

  constructor(s3: S3Client, config: Pick<Config['s3'], 'bucket' | 'archiveBucket'>) {
    this.s3 = s3;
    this.bucket = config.bucket;
    this.archiveBucket = config.archiveBucket;
  }

  async upload(input: UploadInput): Promise<ObjectLocation & { sizeBytes: number }> {
    const { key, body, contentType } = input;
    const Bucket = this.bucket;
    const s3 = this.s3;
    const aborter = new AbortController();
    const abortSignal = aborter.signal;
    let failure: unknown;
    const fail = (err: unknown) => {
      failure ??= err;
      aborter.abort();
    };
    // Cancelled: stop the parts in flight and the source (a stalled source must not keep the upload waiting).
    const onAbort = () => {
      const reason = input.signal?.reason ?? new Error('upload aborted');
      fail(reason);
      body.destroy(reason instanceof Error ? reason : new Error(String(reason)));
    };
    input.signal?.addEventListener('abort', onAbort, { once: true });

    const spare: Buffer[] = [];
    let allocated = 0;
    const inFlight = new Set<Promise<void>>();
    const parts: CompletedPart[] = [];
    let uploadId: string | undefined;
    let part: Buffer | undefined;
    let filled = 0;
    let partNumber = 0;
    let sizeBytes = 0;
    let sent = 0;

    const nextBuffer = async (): Promise<Buffer> => {
      while (spare.length === 0 && allocated >= PART_BUFFERS) {
        if (failure !== undefined) throw failure;
        await Promise.race(inFlight); // never rejects: a part's failure is recorded in `failure`
      }
      if (spare.length > 0) return spare.pop()!;
      allocated += 1;
      return Buffer.allocUnsafeSlow(PART_SIZE);
    };
    /** Sends the filled buffer as the next part; its buffer comes back to `spare` once S3 has it. */
    const sendPart = async () => {
      const buffer = part!;
      const data = buffer.subarray(0, filled);
      part = undefined;
      filled = 0;
      uploadId ??= (await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: key, ContentType: contentType }), { abortSignal })).UploadId;
      const PartNumber = (partNumber += 1);
      const sending: Promise<void> = s3
        .send(new UploadPartCommand({ Bucket, Key: key, UploadId: uploadId, PartNumber, Body: data, ContentLength: data.length }), { abortSignal })
        .then((answer) => {
          const { ETag, ChecksumCRC32, ChecksumCRC32C, ChecksumSHA1, ChecksumSHA256 } = answer;
          if (!ETag) throw new Error(`part ${PartNumber} of ${key} has no ETag`);
          parts.push({ PartNumber, ETag, ChecksumCRC32, ChecksumCRC32C, ChecksumSHA1, ChecksumSHA256 });
          sent += data.length;
          spare.push(buffer);
          input.onProgress?.(sent);
        })
        .catch(fail)
        .finally(() => inFlight.delete(sending));
      inFlight.add(sending);
    };

    try {
      for await (const read of body as AsyncIterable<Uint8Array | string>) {
        if (failure !== undefined) throw failure;
        const chunk = typeof read === 'string' ? Buffer.from(read) : Buffer.from(read.buffer, read.byteOffset, read.byteLength);
        // Counted on the way in, so the size is what was actually sent, whatever the source claimed.
        sizeBytes += chunk.length;
        for (let offset = 0; offset < chunk.length; ) {
          part ??= await nextBuffer();
          const copied = chunk.copy(part, filled, offset);
          filled += copied;
          offset += copied;
          if (filled === PART_SIZE) await sendPart();
        }
      }
      if (failure !== undefined) throw failure;
      if (partNumber === 0) {
        // Smaller than one part: a single PUT.
        const data = part ? part.subarray(0, filled) : Buffer.alloc(0);
        await s3.send(new PutObjectCommand({ Bucket, Key: key, Body: data, ContentType: contentType, ContentLength: data.length }), { abortSignal });
        input.onProgress?.(data.length);
      } else {
        if (filled > 0) await sendPart();
        await Promise.all(inFlight);
        if (failure !== undefined) throw failure;
        parts.sort((x, y) => x.PartNumber! - y.PartNumber!);
        await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }), { abortSignal });
      }
    } catch (err) {
      fail(err);
      await Promise.all(inFlight);
      // Parts are not left behind: the store would keep (and bill) them until a lifecycle rule removed them.
      if (uploadId) await s3.send(new AbortMultipartUploadCommand({ Bucket, Key: key, UploadId: uploadId })).catch(() => {});
      throw failure;
    } finally {
      input.signal?.removeEventListener('abort', onAbort);
    }
    return { bucket: this.bucket, key, sizeBytes };
  }

  async presignGet(location: ObjectLocation, options: { expiresInSeconds?: number; fileName?: string } = {}): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: location.bucket,
      Key: location.key,
      ...(options.fileName ? { ResponseContentDisposition: `attachment; filename="${options.fileName}"` } : {}),
    });
    return getSignedUrl(this.s3, command, { expiresIn: options.expiresInSeconds ?? 3600 });
  }

  async archive(key: string): Promise<ObjectLocation> {
    const target = await this.copyToArchive(key);
    await this.delete({ bucket: this.bucket, key });
    return target;
  }

  async copyToArchive(key: string): Promise<ObjectLocation> {
    const target = { bucket: this.archiveBucket, key };
    // Repeatable: after a crash between copy and delete, the primary copy is gone or the archive copy exists.
    if (await this.head({ bucket: this.bucket, key })) {
      await this.s3.send(
        new CopyObjectCommand({
          Bucket: this.archiveBucket,
          Key: key,
          CopySource: `${this.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
        }),
      );
      if (!(await this.head(target))) throw new Error(`archive copy of ${key} is missing after CopyObject`);
    } else if (!(await this.head(target))) {
      throw new Error(`cannot archive ${key}: no copy in ${this.bucket} or ${this.archiveBucket}`);
    }
    return target;
  }

  async delete(location: ObjectLocation): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: location.bucket, Key: location.key }));
  }

  async head(location: ObjectLocation): Promise<StoredObject | null> {
    try {
      const head = await this.s3.send(new HeadObjectCommand({ Bucket: location.bucket, Key: location.key }));
      return { sizeBytes: head.ContentLength ?? 0, contentType: head.ContentType };
    } catch (err) {
      const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return null;
      throw err;
    }
  }

  async open(location: ObjectLocation, range?: { start: number; end: number }, signal?: AbortSignal): Promise<Readable | null> {
    try {
      const answer = await this.s3.send(
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
    const answer = await this.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
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
      const answer = await this.s3.send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: key }));
      for (const upload of answer.Uploads ?? []) {
        if (upload.Key !== key || !upload.UploadId) continue;
        await this.s3.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: upload.UploadId }));
        aborted += 1;
      }
    } catch {
      // Housekeeping only: a store without ListMultipartUploads still works, its stale parts just linger.
    }
    return aborted;
  }
}
