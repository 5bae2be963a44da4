// An S3-compatible object store: SeaweedFS `weed mini`, one process running master, volume server, filer and the
// S3 gateway. (`weed server -s3` works too, but its shutdown waits ~25 s on gRPC drains; `mini` stops in ~2 s.)
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  HeadBucketCommand,
  ListBucketsCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { ensureTool } from '../tools.ts';
import { freePort, freePortWithPartner, LOOPBACK } from './ports.ts';
import { launch, type ExitStatus, waitUntilReady } from './process.ts';

// SeaweedFS's convention: a component's gRPC port is its HTTP port + 10000. The mini admin's plugin worker
// always dials the admin port + 10000, so that pair must follow the convention even with free ports.
export const GRPC_OFFSET = 10_000;

export interface SeaweedfsPorts {
  s3: number;
  master: number;
  volume: number;
  filer: number;
  admin: number;
}

export interface SeaweedfsOptions {
  /** Holds `data/` (volumes, filer metadata), `seaweedfs.log` and the S3 identity file. */
  dataDir: string;
  /**
   * HTTP ports. Absent or 0: free ports (gRPC ports free too). Given: gRPC ports are HTTP + 10000, stable across
   * restarts, which a persistent data folder needs (the master keeps its state in a folder named after its port).
   */
  ports?: Partial<SeaweedfsPorts>;
  accessKeyId: string;
  secretAccessKey: string;
  region?: string;
  /** Created when missing, once the store is up. */
  buckets?: string[];
  startTimeoutMs?: number;
  /** How long stop() waits after SIGTERM before SIGKILL; default 15 s. Throw-away test servers need no grace. */
  stopTimeoutMs?: number;
}

export interface SeaweedfsServer {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  logFile: string;
  /** Settles when the server process has exited, for whatever reason. */
  exited: Promise<ExitStatus>;
  stop(): Promise<void>;
}

export async function startSeaweedfs(options: SeaweedfsOptions): Promise<SeaweedfsServer> {
  const binary = await ensureTool('weed');
  const region = options.region ?? 'us-east-1';
  const dataFolder = join(options.dataDir, 'data');
  await mkdir(dataFolder, { recursive: true });

  // The identity file is rewritten at every start so the configured keys always win.
  const identities = join(options.dataDir, 's3-identities.json');
  const identity = {
    identities: [
      {
        name: 'convene',
        credentials: [{ accessKey: options.accessKeyId, secretKey: options.secretAccessKey }],
        actions: ['Admin', 'Read', 'List', 'Tagging', 'Write'],
      },
    ],
  };
  await writeFile(identities, JSON.stringify(identity, null, 2), { mode: 0o600 });
  await chmod(identities, 0o600);

  const http = await resolvePorts(options.ports ?? {});
  const grpc: SeaweedfsPorts = {
    s3: await grpcPort(options.ports?.s3, http.s3),
    master: await grpcPort(options.ports?.master, http.master),
    volume: await grpcPort(options.ports?.volume, http.volume),
    filer: await grpcPort(options.ports?.filer, http.filer),
    admin: http.admin + GRPC_OFFSET,
  };
  const logFile = join(options.dataDir, 'seaweedfs.log');
  const args = [
    'mini',
    `-dir=${dataFolder}`,
    `-ip=${LOOPBACK}`,
    `-ip.bind=${LOOPBACK}`,
    `-master.port=${http.master}`,
    `-master.port.grpc=${grpc.master}`,
    `-volume.port=${http.volume}`,
    `-volume.port.grpc=${grpc.volume}`,
    `-filer.port=${http.filer}`,
    `-filer.port.grpc=${grpc.filer}`,
    `-s3.port=${http.s3}`,
    `-s3.port.grpc=${grpc.s3}`,
    `-s3.config=${identities}`,
    // Admin gRPC is left at admin + 10000: the bundled plugin worker dials exactly that.
    `-admin.port=${http.admin}`,
    '-admin.ui=false',
    '-s3.port.iceberg=0',
    '-s3.port.lance=0',
    '-webdav=false',
    '-master.telemetry=false',
  ];
  const proc = launch({
    name: 'seaweedfs',
    command: binary,
    args,
    logFile,
    stopSignal: 'SIGTERM',
    stopTimeoutMs: options.stopTimeoutMs,
  });
  const stop = async () => {
    await proc.stop();
    await removeSocketFiles(http, grpc);
  };

  const endpoint = `http://${LOOPBACK}:${http.s3}`;
  const client = new S3Client({
    endpoint,
    region,
    forcePathStyle: true,
    credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
    maxAttempts: 1,
  });
  try {
    await waitUntilReady(
      proc,
      async () => {
        await volumeServerRegistered(http.master);
        // An authenticated call proves the gateway, the filer behind it and our identity file all work.
        await client.send(new ListBucketsCommand({}));
      },
      { timeoutMs: options.startTimeoutMs ?? 60_000, logFile },
    );
    for (const bucket of options.buckets ?? []) await ensureBucket(client, bucket);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    region,
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    logFile,
    exited: proc.exited,
    stop,
  };
}

interface TopologyStatus {
  Topology?: { DataCenters?: { Racks?: { DataNodes?: unknown[] }[] }[] | null };
}

/**
 * Until the volume server's first heartbeat reaches the master, objects stored before a restart answer 500
 * ("volume not found"); that takes a few seconds with an existing data folder.
 */
async function volumeServerRegistered(masterPort: number): Promise<void> {
  const response = await fetch(`http://${LOOPBACK}:${masterPort}/dir/status`, { signal: AbortSignal.timeout(2000) });
  const status = (await response.json()) as TopologyStatus;
  const nodes = (status.Topology?.DataCenters ?? []).flatMap((dc) => dc.Racks ?? []).flatMap((r) => r.DataNodes ?? []);
  if (nodes.length === 0) throw new Error('no volume server has registered with the master yet');
}

async function grpcPort(given: number | undefined, httpPort: number): Promise<number> {
  return given ? httpPort + GRPC_OFFSET : freePort();
}

// weed always adds unix sockets named after the ports in /tmp, and leaves them behind.
async function removeSocketFiles(http: SeaweedfsPorts, grpc: SeaweedfsPorts): Promise<void> {
  const files = [`seaweedfs-s3-${http.s3}.sock`, `seaweedfs-filer-${http.filer}.sock`];
  for (const name of Object.keys(grpc) as (keyof SeaweedfsPorts)[]) {
    files.push(`seaweedfs-${name}-grpc-${grpc[name]}.sock`);
  }
  await Promise.all(files.map((file) => rm(join('/tmp', file), { force: true })));
}

async function resolvePorts(given: Partial<SeaweedfsPorts>): Promise<SeaweedfsPorts> {
  return {
    s3: given.s3 || (await freePort()),
    master: given.master || (await freePort()),
    volume: given.volume || (await freePort()),
    filer: given.filer || (await freePort()),
    admin: given.admin || (await freePortWithPartner(GRPC_OFFSET)),
  };
}

async function ensureBucket(client: S3Client, bucket: string): Promise<void> {
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
  } catch {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  }
}
