// Benchmark (not a test): resident memory while a 1 GiB recording is streamed into S3 the way the ingestion transfer
// does it (src/modules/recordings/ingestion-transfer.ts: fetch → Readable.fromWeb → a counting generator →
// ObjectStore.upload), with the previous upload path (`@aws-sdk/lib-storage`'s Upload, 8 MiB parts, queue of 2)
// beside it in the same run, and lib-storage at 5 MiB parts (queue of 2 and of 1), the store's part size, to see
// whether the library alone would do.
//
//   npx node bench/ingest-memory.ts [--gib 1] [--runs 3] [--paths lib-storage,lib-5m-q2,lib-5m-q1,store]
//
// This process runs SeaweedFS (throw-away, in a temporary folder) and a loopback HTTP server that produces the file
// (1 MiB at a time, never whole in memory); every upload runs in a fresh child process (`--expose-gc`), which samples
// its own RSS every 50 ms: growth = peak − RSS before the upload (after a GC). Each run uploads once per path, in
// turn; the path that goes first rotates from run to run.
// Results: BENCHMARKS.md.
import { fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    role: { type: 'string', default: 'main' },
    gib: { type: 'string', default: '1' },
    runs: { type: 'string', default: '3' },
    path: { type: 'string', default: 'store' },
    url: { type: 'string', default: '' },
    paths: { type: 'string', default: 'lib-storage,lib-5m-q2,lib-5m-q1,store' },
  },
});
const MiB = 1024 * 1024;
/** The lib-storage paths: `lib-storage` is the previous configuration of src/storage/object-store.ts. */
const LIB_STORAGE: Record<string, { partSize: number; queueSize: number }> = {
  'lib-storage': { partSize: 8 * MiB, queueSize: 2 },
  'lib-5m-q2': { partSize: 5 * MiB, queueSize: 2 },
  'lib-5m-q1': { partSize: 5 * MiB, queueSize: 1 },
};

interface RunResult {
  path: string;
  bytes: number;
  rssGrowthMiB: number;
  heapGrowthMiB: number;
  seconds: number;
}

/** Child: one upload, measured from inside. */
async function uploadOnce(): Promise<RunResult> {
  const { S3ObjectStore } = await import('../src/storage/object-store.ts');
  const { createS3Client } = await import('../src/storage/s3-client.ts');
  const config = {
    endpoint: process.env.S3_ENDPOINT!,
    region: process.env.S3_REGION!,
    accessKeyId: process.env.S3_ACCESS_KEY_ID!,
    secretAccessKey: process.env.S3_SECRET_ACCESS_KEY!,
    bucket: 'bench',
    archiveBucket: 'bench',
  };
  const s3 = createS3Client(config as Parameters<typeof createS3Client>[0]);
  const store = new S3ObjectStore(s3, config);
  const key = `bench/${randomUUID()}.wav`;
  // Warm the client (credentials, connection, modules) so the first request's setup is not counted as growth.
  await store.upload({ key: `${key}.warm`, body: Readable.from([Buffer.alloc(1024)]), contentType: 'audio/wav' });
  for (let i = 0; i < 3; i++) globalThis.gc?.();
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 50);
  const started = performance.now();
  // The activity's source: fetch, Readable.fromWeb, a counting generator, Readable.from.
  const response = await fetch(args.url);
  let bytes = 0;
  const body = Readable.from(
    (async function* () {
      for await (const chunk of Readable.fromWeb(response.body as WebReadableStream<Uint8Array>)) {
        bytes += (chunk as Buffer).length;
        yield chunk;
      }
    })(),
  );
  if (args.path === 'store') {
    await store.upload({ key, body, contentType: 'audio/wav' });
  } else {
    const { Upload } = await import('@aws-sdk/lib-storage');
    const { partSize, queueSize } = LIB_STORAGE[args.path]!;
    const upload = new Upload({
      client: s3,
      params: { Bucket: config.bucket, Key: key, Body: body, ContentType: 'audio/wav' },
      partSize,
      queueSize,
      leavePartsOnError: false,
    });
    await upload.done();
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const head = await store.head({ bucket: config.bucket, key });
  if (head?.sizeBytes !== bytes) throw new Error(`stored ${head?.sizeBytes} bytes, sent ${bytes}`);
  await store.delete({ bucket: config.bucket, key });
  await store.delete({ bucket: config.bucket, key: `${key}.warm` });
  s3.destroy();
  return { path: args.path, bytes, rssGrowthMiB: (peakRss - before.rss) / MiB, heapGrowthMiB: (peakHeap - before.heapUsed) / MiB, seconds };
}

async function main(): Promise<void> {
  const { startSeaweedfs } = await import('../scripts/stack/seaweedfs.ts');
  const size = Math.round(Number(args.gib) * 1024 * MiB);
  const runs = Number(args.runs);
  const paths = args.paths.split(',').map((p) => p.trim());
  for (const p of paths) if (p !== 'store' && !LIB_STORAGE[p]) throw new Error(`unknown path ${p}: store, ${Object.keys(LIB_STORAGE).join(', ')}`);
  const width = Math.max(...paths.map((p) => p.length));
  const root = await mkdtemp(join(tmpdir(), 'convene-ingest-bench-'));
  const keys = { accessKeyId: `bench-${randomBytes(6).toString('hex')}`, secretAccessKey: randomBytes(24).toString('base64url') };
  const s3 = await startSeaweedfs({ dataDir: join(root, 'seaweedfs'), ...keys, buckets: ['bench'], stopTimeoutMs: 300 });
  // The "media provider": the file, produced 1 MiB at a time.
  const chunk = randomBytes(MiB);
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'audio/wav', 'Content-Length': String(size) });
    let sent = 0;
    const more = () => {
      while (sent < size) {
        const n = Math.min(MiB, size - sent);
        sent += n;
        if (!res.write(n === MiB ? chunk : chunk.subarray(0, n))) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/recording.wav`;
  const env = { ...process.env, S3_ENDPOINT: s3.endpoint, S3_REGION: s3.region, S3_ACCESS_KEY_ID: s3.accessKeyId, S3_SECRET_ACCESS_KEY: s3.secretAccessKey };
  const once = (path: string) =>
    new Promise<RunResult>((resolve, reject) => {
      const child = fork(new URL(import.meta.url).pathname, ['--role', 'upload', '--path', path, '--url', url], { env, execArgv: [...process.execArgv, '--expose-gc'] });
      child.once('message', (m: { ok: boolean; result?: RunResult; error?: string }) => (m.ok ? resolve(m.result!) : reject(new Error(m.error))));
      child.once('exit', (code) => code !== 0 && reject(new Error(`upload child exited ${code}`)));
    });
  const results: RunResult[] = [];
  try {
    console.log(`${(size / MiB).toFixed(0)} MiB per upload, ${runs} runs per path (${paths.join(', ')}), in turn`);
    for (let i = 0; i < runs; i++) {
      for (let j = 0; j < paths.length; j++) {
        const path = paths[(i + j) % paths.length]!;
        const r = await once(path);
        results.push(r);
        console.log(`  run ${i + 1} ${path.padEnd(width)}: RSS +${r.rssGrowthMiB.toFixed(1)} MiB, heap +${r.heapGrowthMiB.toFixed(1)} MiB, ${(r.bytes / 1e6 / r.seconds).toFixed(0)} MB/s`);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    for (const path of paths) {
      const mine = results.filter((r) => r.path === path);
      console.log(
        `median ${path.padEnd(width)}: RSS +${median(mine.map((r) => r.rssGrowthMiB)).toFixed(1)} MiB, heap +${median(mine.map((r) => r.heapGrowthMiB)).toFixed(1)} MiB, ` +
          `${median(mine.map((r) => r.bytes / 1e6 / r.seconds)).toFixed(0)} MB/s`,
      );
    }
  } finally {
    server.close();
    await s3.stop();
    await rm(root, { recursive: true, force: true });
  }
}

if (args.role === 'upload') {
  uploadOnce().then(
    (result) => process.send!({ ok: true, result }, () => process.exit(0)),
    (err) => process.send!({ ok: false, error: String((err as Error).stack ?? err) }, () => process.exit(1)),
  );
} else {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
