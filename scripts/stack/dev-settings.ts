// What `npm run dev` starts and where, read from the environment. A variable that is set but invalid stops start-up
// with a message naming it. An explicit DATABASE_URL / TEMPORAL_ADDRESS / S3_ENDPOINT / UPSTREAM_API_URL means
// "use that service, don't start one".
import { isAbsolute, join } from 'node:path';
import { GRPC_OFFSET, type SeaweedfsPorts } from './seaweedfs.ts';

type Env = Record<string, string | undefined>;

export class DevSettingsError extends Error {}

/** A port the dev stack binds, with the variable that moves it (for "port in use" messages). */
export interface BoundPort {
  port: number;
  variable: string;
}

export interface DevSettings {
  dataDir: string;
  apiPort: number;
  postgres: { external: string } | { port: number; database: string; user: string; password: string };
  temporal: { external: string } | { port: number; uiPort: number };
  temporalNamespace: string;
  /** The development media server (dev/media-server/server.ts) stands in for the media provider. */
  media: { external: string } | { port: number };
  s3:
    | { external: string }
    | { ports: SeaweedfsPorts };
  s3Region: string;
  s3Bucket: string;
  s3ArchiveBucket: string;
  s3AccessKeyId: string;
  s3SecretAccessKey: string;
  adminApiKey: string;
  publicBaseUrl: string;
  /** Every port the dev stack will bind itself. */
  boundPorts: BoundPort[];
}

/** Defaults and variable names; docs/development.md lists the same table. */
export const DEV_PORTS = {
  PORT: 3000,
  DEV_POSTGRES_PORT: 54329,
  DEV_TEMPORAL_PORT: 7233,
  DEV_TEMPORAL_UI_PORT: 8233,
  DEV_S3_PORT: 8333,
  DEV_SEAWEEDFS_MASTER_PORT: 9333,
  DEV_SEAWEEDFS_VOLUME_PORT: 9340,
  DEV_SEAWEEDFS_FILER_PORT: 8888,
  DEV_SEAWEEDFS_ADMIN_PORT: 23646,
  DEV_MEDIA_PORT: 4010,
} as const;

export const DEV_ADMIN_API_KEY = 'convene-dev-admin-key';

export function readDevSettings(env: Env, projectRoot: string): DevSettings {
  const problems: string[] = [];
  const port = (name: keyof typeof DEV_PORTS, max = 65535): number => {
    const raw = value(env, name);
    if (raw === undefined) return DEV_PORTS[name];
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
      problems.push(`${name}="${raw}" must be a port number from 1 to ${max}` +
        (max < 65535 ? ` (SeaweedFS also binds the port + ${GRPC_OFFSET} for gRPC)` : ''));
      return DEV_PORTS[name];
    }
    return Number(raw);
  };
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = value(env, name);
    if (raw === undefined) return undefined;
    try {
      if (protocols.includes(new URL(raw).protocol)) return raw;
    } catch {
      // Reported below.
    }
    problems.push(`${name}="${raw}" must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`);
    return undefined;
  };

  const apiPort = port('PORT');
  const grpcMax = 65535 - GRPC_OFFSET;
  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const temporalAddress = value(env, 'TEMPORAL_ADDRESS');
  if (temporalAddress !== undefined && !/^[^\s:/]+:\d+$/.test(temporalAddress)) {
    problems.push(`TEMPORAL_ADDRESS="${temporalAddress}" must look like host:port`);
  }
  const s3Endpoint = url('S3_ENDPOINT', ['http:', 'https:']);
  const upstreamApiUrl = url('UPSTREAM_API_URL', ['http:', 'https:']);
  const mediaPort = port('DEV_MEDIA_PORT');
  const publicBaseUrl = url('PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://127.0.0.1:${apiPort}`;

  const postgresPort = port('DEV_POSTGRES_PORT');
  const temporalPort = port('DEV_TEMPORAL_PORT');
  const temporalUiPort = port('DEV_TEMPORAL_UI_PORT');
  const seaweedPorts: SeaweedfsPorts = {
    s3: port('DEV_S3_PORT', grpcMax),
    master: port('DEV_SEAWEEDFS_MASTER_PORT', grpcMax),
    volume: port('DEV_SEAWEEDFS_VOLUME_PORT', grpcMax),
    filer: port('DEV_SEAWEEDFS_FILER_PORT', grpcMax),
    admin: port('DEV_SEAWEEDFS_ADMIN_PORT', grpcMax),
  };
  const adminApiKey = value(env, 'ADMIN_API_KEY') ?? DEV_ADMIN_API_KEY;
  if (adminApiKey.length < 16) problems.push('ADMIN_API_KEY must be at least 16 characters');

  if (problems.length > 0) {
    throw new DevSettingsError(`npm run dev: invalid settings:\n  ${problems.join('\n  ')}`);
  }

  const dataDir = value(env, 'DEV_DATA_DIR') ?? '.data';
  const boundPorts: BoundPort[] = [{ port: apiPort, variable: 'PORT' }];
  if (!upstreamApiUrl) boundPorts.push({ port: mediaPort, variable: 'DEV_MEDIA_PORT' });
  if (!databaseUrl) boundPorts.push({ port: postgresPort, variable: 'DEV_POSTGRES_PORT' });
  if (!temporalAddress) {
    boundPorts.push({ port: temporalPort, variable: 'DEV_TEMPORAL_PORT' });
    boundPorts.push({ port: temporalUiPort, variable: 'DEV_TEMPORAL_UI_PORT' });
  }
  if (!s3Endpoint) {
    const names: Record<keyof SeaweedfsPorts, string> = {
      s3: 'DEV_S3_PORT',
      master: 'DEV_SEAWEEDFS_MASTER_PORT',
      volume: 'DEV_SEAWEEDFS_VOLUME_PORT',
      filer: 'DEV_SEAWEEDFS_FILER_PORT',
      admin: 'DEV_SEAWEEDFS_ADMIN_PORT',
    };
    for (const key of Object.keys(names) as (keyof SeaweedfsPorts)[]) {
      boundPorts.push({ port: seaweedPorts[key], variable: names[key] });
      boundPorts.push({ port: seaweedPorts[key] + GRPC_OFFSET, variable: `${names[key]} (+${GRPC_OFFSET}, gRPC)` });
    }
  }

  return {
    dataDir: isAbsolute(dataDir) ? dataDir : join(projectRoot, dataDir),
    apiPort,
    postgres: databaseUrl
      ? { external: databaseUrl }
      : { port: postgresPort, database: 'convene', user: 'postgres', password: 'postgres' },
    temporal: temporalAddress ? { external: temporalAddress } : { port: temporalPort, uiPort: temporalUiPort },
    temporalNamespace: value(env, 'TEMPORAL_NAMESPACE') ?? 'default',
    media: upstreamApiUrl ? { external: upstreamApiUrl } : { port: mediaPort },
    s3: s3Endpoint ? { external: s3Endpoint } : { ports: seaweedPorts },
    s3Region: value(env, 'S3_REGION') ?? 'us-east-1',
    s3Bucket: value(env, 'S3_BUCKET') ?? 'convene-recordings',
    s3ArchiveBucket: value(env, 'S3_ARCHIVE_BUCKET') ?? 'convene-archive',
    s3AccessKeyId: value(env, 'S3_ACCESS_KEY_ID') ?? 'convene',
    s3SecretAccessKey: value(env, 'S3_SECRET_ACCESS_KEY') ?? 'convene-secret',
    adminApiKey,
    publicBaseUrl,
    boundPorts,
  };
}

function value(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}
