// `npm run dev`: PostgreSQL, the Temporal dev server (Web UI included) and SeaweedFS (S3), then the development media
// server, the API and the worker, all with state in `.data/` that survives restarts. Ctrl-C stops the Node processes
// first, then the services.
// docs/development.md describes the ports, the variables and how to reset the data.
import { randomBytes } from 'node:crypto';
import { serveWebClient } from '../examples/web/serve.ts';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { Connection } from '@temporalio/client';
import { DEFAULT_TASK_QUEUE } from '../src/config.ts';
import { projectRoot } from './tools.ts';
import { DevSettingsError, readDevSettings, type DevSettings } from './stack/dev-settings.ts';
import { isPortFree } from './stack/ports.ts';
import { startPostgres } from './stack/postgres.ts';
import { prettyLogLines } from './stack/pretty-log.ts';
import { describeExit, launch, stopAll, tailOfFile, type ExitStatus } from './stack/process.ts';
import { startSeaweedfs } from './stack/seaweedfs.ts';
import { startTemporal } from './stack/temporal.ts';

const say = (line: string) => process.stdout.write(`[dev] ${line}\n`);

/** A child of ours that must keep running: the API, the worker, each service we started. */
interface Running {
  name: string;
  exited: Promise<ExitStatus>;
  stop(): Promise<void>;
  /** Its last output, for the crash report. */
  tail(): string;
}

/** One backing service as the summary shows it; `logFile` only when we started it. */
interface Service {
  name: string;
  location: string;
  logFile?: string;
}

const apps: Running[] = [];
const services: Running[] = [];
let shuttingDown: Promise<never> | undefined;
let firstSignalAt = 0;

async function main(): Promise<void> {
  const settings = readSettingsOrExit();
  installSignalHandlers();
  await refuseBusyPorts(settings);
  await mkdir(settings.dataDir, { recursive: true });

  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  say(`starting services (data in ${relativeToRoot(settings.dataDir)}/)…`);
  const announce = async (starting: Promise<Service>): Promise<Service> => {
    const service = await starting;
    say(service.logFile ? `${service.name} ready after ${elapsed()}` : `${service.name}: external, not started`);
    return service;
  };
  const [postgres, temporal, s3] = await Promise.all([
    announce(startDatabase(settings)),
    announce(startTemporalServer(settings)),
    announce(startObjectStore(settings)),
  ]);
  say(`services ready in ${elapsed()}`);

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: process.env.NODE_ENV || 'development',
    PORT: String(settings.apiPort),
    PUBLIC_BASE_URL: settings.publicBaseUrl,
    DATABASE_URL: postgres.location,
    TEMPORAL_ADDRESS: temporal.location,
    TEMPORAL_NAMESPACE: settings.temporalNamespace,
    S3_ENDPOINT: s3.location,
    S3_REGION: settings.s3Region,
    S3_BUCKET: settings.s3Bucket,
    S3_ARCHIVE_BUCKET: settings.s3ArchiveBucket,
    S3_ACCESS_KEY_ID: settings.s3AccessKeyId,
    S3_SECRET_ACCESS_KEY: settings.s3SecretAccessKey,
    ADMIN_API_KEY: settings.adminApiKey,
    SECRETS_KEY: process.env.SECRETS_KEY || (await persistentSecretsKey(settings.dataDir)),
    // Recordings are downloaded from the development media server on loopback (docs/decisions.md §7); explicit settings win.
    SSRF_ALLOW_LOOPBACK: process.env.SSRF_ALLOW_LOOPBACK || 'true',
    // Webhook, transcription and AI metrics are counted where that work runs, in the worker (docs/metrics.md): in dev
    // its endpoint is on, on 9464 unless that port is busy or WORKER_METRICS_PORT says otherwise.
    WORKER_METRICS_PORT: process.env.WORKER_METRICS_PORT || ((await isPortFree(9464)) ? '9464' : '0'),
  };

  const mediaServer = join(projectRoot, 'dev', 'media-server', 'server.ts');
  let mediaUrl: string | undefined;
  if ('external' in settings.media) {
    mediaUrl = settings.media.external;
  } else if (existsSync(mediaServer)) {
    mediaUrl = `http://127.0.0.1:${settings.media.port}`;
    const mediaEnv = {
      ...env,
      DEV_MEDIA_PORT: String(settings.media.port),
      // Recordings it made survive a restart, like everything else in .data.
      DEV_MEDIA_STATE_FILE: process.env.DEV_MEDIA_STATE_FILE || join(settings.dataDir, 'dev-media', 'recordings.json'),
    };
    await mkdir(join(settings.dataDir, 'dev-media'), { recursive: true });
    apps.push(startApp('media', [mediaServer], mediaEnv));
  } else {
    say(`WARNING: ${relativeToRoot(mediaServer)} does not exist yet; no development media server.`);
  }
  if (mediaUrl) {
    env.UPSTREAM_API_URL = mediaUrl;
    // The development media server is also the `openai` transcription provider and the `openai-compatible` AI
    // (docs/decisions.md §8–9), so the whole post-meeting pipeline runs locally with no key. Explicit settings win.
    env.OPENAI_BASE_URL = process.env.OPENAI_BASE_URL || `${mediaUrl}/v1`;
    env.AI_BASE_URL = process.env.AI_BASE_URL || `${mediaUrl}/v1`;
    env.TRANSCRIPTION_DEFAULT_PROVIDER = process.env.TRANSCRIPTION_DEFAULT_PROVIDER || 'openai';
    // The server ignores the model; a non-diarizing name lets the tenant's keywords go as the prompt.
    env.OPENAI_TRANSCRIPTION_MODEL = process.env.OPENAI_TRANSCRIPTION_MODEL || 'whisper-1';
    if (process.env.UPSTREAM_API_KEY) {
      // A media server that wants a key wants it on /v1/audio and /v1/chat too.
      env.OPENAI_API_KEY = process.env.OPENAI_API_KEY || process.env.UPSTREAM_API_KEY;
      env.AI_API_KEY = process.env.AI_API_KEY || process.env.UPSTREAM_API_KEY;
    }
  }

  const entry = join(projectRoot, 'src', 'main.ts');
  if (existsSync(entry)) {
    for (const role of ['api', 'worker']) apps.push(startApp(role, [entry, role], env));
  } else {
    say(`WARNING: ${relativeToRoot(entry)} does not exist yet; running the services only.`);
  }
  const webUrl = await startWebClient();
  printSummary(settings, [postgres, temporal, s3], { apiRunning: existsSync(entry), mediaUrl, env, webUrl });
  if (existsSync(entry)) void announceReady(settings, env);

  // Anything that stops on its own (a crash, a lost port) takes the whole stack down, loudly.
  const watched = [...apps, ...services];
  const first = await Promise.race(watched.map((child) => child.exited.then((status) => ({ child, status }))));
  if (!shuttingDown) {
    process.stderr.write(`[dev] ${first.child.name} exited unexpectedly (${describeExit(first.status)}).\n`);
    const tail = first.child.tail();
    if (tail) process.stderr.write(`${tail}\n`);
    await shutdown(1);
  }
}

function readSettingsOrExit(): DevSettings {
  try {
    return readDevSettings(process.env, projectRoot);
  } catch (error) {
    if (!(error instanceof DevSettingsError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
}

async function startDatabase(settings: DevSettings): Promise<Service> {
  if ('external' in settings.postgres) return { name: 'PostgreSQL', location: settings.postgres.external };
  const { port, database, user, password } = settings.postgres;
  const server = await startPostgres({ dataDir: join(settings.dataDir, 'postgres'), port, user, password });
  track('postgres', server);
  await server.createDatabase(database);
  return { name: 'PostgreSQL', location: server.url(database), logFile: server.logFile };
}

async function startTemporalServer(settings: DevSettings): Promise<Service & { uiUrl?: string }> {
  if ('external' in settings.temporal) return { name: 'Temporal', location: settings.temporal.external };
  const server = await startTemporal({
    dataDir: join(settings.dataDir, 'temporal'),
    port: settings.temporal.port,
    uiPort: settings.temporal.uiPort,
    namespaces: [settings.temporalNamespace],
  });
  track('temporal', server);
  return { name: 'Temporal', location: server.address, logFile: server.logFile, uiUrl: server.uiUrl };
}

async function startObjectStore(settings: DevSettings): Promise<Service> {
  if ('external' in settings.s3) return { name: 'SeaweedFS (S3)', location: settings.s3.external };
  const server = await startSeaweedfs({
    dataDir: join(settings.dataDir, 'seaweedfs'),
    ports: settings.s3.ports,
    accessKeyId: settings.s3AccessKeyId,
    secretAccessKey: settings.s3SecretAccessKey,
    region: settings.s3Region,
    buckets: [settings.s3Bucket, settings.s3ArchiveBucket],
  });
  track('seaweedfs', server);
  return { name: 'SeaweedFS (S3)', location: server.endpoint, logFile: server.logFile };
}

function track(name: string, server: { exited: Promise<ExitStatus>; stop(): Promise<void>; logFile: string }): void {
  services.push({
    name,
    exited: server.exited,
    stop: () => server.stop(),
    tail: () => `--- ${relativeToRoot(server.logFile)} ---\n${tailOfFile(server.logFile, 20)}`,
  });
}

// Readable log lines in the terminal; DEV_LOG_FORMAT=json keeps pino's JSON (to pipe into jq, say).
const formatLine = process.env.DEV_LOG_FORMAT === 'json' ? (line: string) => line : prettyLogLines({ colorize: process.stdout.isTTY === true });

function startApp(role: string, args: string[], env: NodeJS.ProcessEnv): Running {
  const prefix = `[${role}] `.padEnd(9);
  const proc = launch({
    name: role,
    command: process.execPath,
    args,
    cwd: projectRoot,
    env,
    onLine: (line) => process.stdout.write(`${prefix}${formatLine(line)}\n`),
    stopSignal: 'SIGTERM',
    stopTimeoutMs: 20_000,
  });
  // Its output already went to the terminal, line by line.
  return { name: role, exited: proc.exited, stop: () => proc.stop(), tail: () => '' };
}

/**
 * The browser client of examples/web/ (static files, served from this process; docs/integrating.md). Optional: a busy
 * WEB_PORT only costs the page, not the stack.
 */
async function startWebClient(): Promise<string | undefined> {
  const port = Number(process.env.WEB_PORT || 8080);
  if (!Number.isInteger(port) || port < 1 || port > 65535 || !(await isPortFree(port))) return undefined;
  const web = await serveWebClient(port).catch(() => undefined);
  if (!web) return undefined;
  apps.push({ name: 'web', exited: new Promise<never>(() => {}), stop: () => web.close(), tail: () => '' });
  return web.url;
}

/** A development SECRETS_KEY kept in .data, so secrets encrypted in one session still decrypt in the next. */
async function persistentSecretsKey(dataDir: string): Promise<string> {
  const file = join(dataDir, 'secrets-key');
  const existing = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (existing) return existing;
  const key = randomBytes(32).toString('base64');
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}

async function refuseBusyPorts(settings: DevSettings): Promise<void> {
  const busy: string[] = [];
  for (const { port, variable } of settings.boundPorts) {
    if (!(await isPortFree(port))) busy.push(`  port ${port} (${variable}) is already in use`);
  }
  if (busy.length > 0) {
    process.stderr.write(
      `npm run dev: cannot start:\n${busy.join('\n')}\n` +
        'Is another "npm run dev" running? Stop it, or move this one with the variables named above.\n',
    );
    process.exit(1);
  }
}

function printSummary(
  settings: DevSettings,
  [postgres, temporal, s3]: [Service, Service & { uiUrl?: string }, Service],
  { apiRunning, mediaUrl, env, webUrl }: { apiRunning: boolean; mediaUrl: string | undefined; env: NodeJS.ProcessEnv; webUrl: string | undefined },
): void {
  const data = relativeToRoot(settings.dataDir);
  const external = (service: Service) => (service.logFile ? '' : '   (external)');
  const rows: [string, string][] = [
    ['API', `http://127.0.0.1:${settings.apiPort}${apiRunning ? '' : '   (not started: no src/main.ts)'}`],
    ['API docs', `http://127.0.0.1:${settings.apiPort}/docs`],
    ['Admin key', `X-Admin-Key: ${settings.adminApiKey}`],
    ['PostgreSQL', `${hidePassword(postgres.location)}${external(postgres)}`],
    ['Temporal', `${temporal.location}   namespace ${settings.temporalNamespace}${external(temporal)}`],
    ['Temporal UI', temporal.uiUrl ?? '(external Temporal: see its own UI)'],
    ['S3', `${s3.location}   region ${settings.s3Region}${external(s3)}`],
    ['S3 keys', `${settings.s3AccessKeyId} / ${s3.logFile ? settings.s3SecretAccessKey : '(from S3_SECRET_ACCESS_KEY)'}`],
    ['S3 buckets', `${settings.s3Bucket}, ${settings.s3ArchiveBucket}`],
    ['Web client', webUrl ? `${webUrl}#server=ws://127.0.0.1:${settings.apiPort}&token=<participant access_token>&auth=<participant auth_token>` : '(WEB_PORT busy: not served; WEB_PORT=8081 npm run web serves it elsewhere)'],
    ['Metrics', metricsRow(settings.apiPort, env.WORKER_METRICS_PORT)],
    ['Media server', mediaUrl ? `${mediaUrl}${'external' in settings.media ? '   (external)' : ''}` : '(none)'],
    ['Transcription', env.OPENAI_BASE_URL ? `openai → ${env.OPENAI_BASE_URL}` : '(default settings)'],
    ['AI', `${env.AI_DEFAULT_PROVIDER || 'builtin'} (openai-compatible → ${env.AI_BASE_URL || 'AI_BASE_URL'})`],
    ['Data', `${data}/   (reset: stop, then rm -rf ${[data, ...clusterElsewhere(settings.dataDir)].join(' ')})`],
  ];
  const logs = [postgres, temporal, s3].flatMap((s) => (s.logFile ? [relativeToRoot(s.logFile)] : []));
  if (logs.length > 0) rows.push(['Logs', logs.join(', ')]);
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = rows.map(([label, text]) => `  ${label.padEnd(width)}  ${text}`);
  const rule = '─'.repeat(Math.min(100, Math.max(...lines.map((l) => l.length)) + 2));
  process.stdout.write(
    `\n${rule}\n  Convene development stack\n${rule}\n${lines.join('\n')}\n${rule}\n  Ctrl-C stops everything.\n\n`,
  );
}

/**
 * The start-up block's last line: once the API answers /healthz and a worker polls the task queue, one "ready" line
 * that also names the operators' command (docs/operations.md). Quiet if the stack stops first.
 */
async function announceReady(settings: DevSettings, env: NodeJS.ProcessEnv): Promise<void> {
  const started = Date.now();
  const apiUp = async () => (await fetch(`http://127.0.0.1:${settings.apiPort}/healthz`, { signal: AbortSignal.timeout(2000) })).ok;
  const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS!, connectTimeout: '5s' });
  const workerUp = async () => {
    const { pollers } = await connection.workflowService.describeTaskQueue({
      namespace: settings.temporalNamespace,
      taskQueue: { name: env.TEMPORAL_TASK_QUEUE || DEFAULT_TASK_QUEUE },
      taskQueueType: 1, // WORKFLOW
    });
    return pollers.length > 0;
  };
  try {
    while (!shuttingDown && Date.now() - started < 5 * 60_000) {
      if ((await apiUp().catch(() => false)) && (await workerUp().catch(() => false))) {
        process.stdout.write(
          `[dev] ready: API and worker answer (after ${((Date.now() - started) / 1000).toFixed(1)} s). Workflows: Temporal UI above, or npm run temporal -- workflow list\n`,
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await connection.close();
  }
}

/** The API's and the worker's metrics endpoints (docs/metrics.md: webhook, transcription and AI metrics are the worker's). */
function metricsRow(apiPort: number, workerPort: string | undefined): string {
  const worker = workerPort && workerPort !== '0' ? `http://127.0.0.1:${workerPort}/metrics` : '(port 9464 busy: set WORKER_METRICS_PORT)';
  return `API http://127.0.0.1:${apiPort}/metrics, worker ${worker}`;
}

/**
 * Run as root from a folder PostgreSQL's own user cannot enter, the cluster lives under /var/tmp (scripts/stack/postgres.ts
 * writes where in `pgdata.location`): a reset must remove it too, or the next start finds the old database again.
 */
function clusterElsewhere(dataDir: string): string[] {
  const location = join(dataDir, 'postgres', 'pgdata.location');
  if (!existsSync(location)) return [];
  const pgdata = readFileSync(location, 'utf8').split('\n')[0].trim();
  return pgdata ? [dirname(pgdata)] : [];
}

/** The dev cluster's password is a known default; an external database's is not ours to print. */
function hidePassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password && parsed.password !== 'postgres') parsed.password = '***';
  return parsed.toString();
}

function relativeToRoot(path: string): string {
  const shown = relative(projectRoot, path) || '.';
  return shown.startsWith('..') ? path : shown;
}

function installSignalHandlers(): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      const now = Date.now();
      if (!shuttingDown) {
        firstSignalAt = now;
        void shutdown(0);
        return;
      }
      // `npm run` forwards the terminal's Ctrl-C, so one key press can arrive twice: only a later one forces.
      if (now - firstSignalAt > 1500) {
        process.stderr.write('[dev] second interrupt: exiting now (children still get their stop signal)\n');
        process.exit(130);
      }
    });
  }
}

function shutdown(code: number): Promise<never> {
  shuttingDown ??= (async () => {
    say('stopping: the Node processes first, then the services…');
    await Promise.all(apps.map((app) => app.stop()));
    await Promise.all(services.map((service) => service.stop()));
    // Whatever is still starting (Ctrl-C during start-up) is stopped here.
    await stopAll();
    say('stopped.');
    process.exit(code);
  })();
  return shuttingDown;
}

main().catch(async (error: unknown) => {
  process.stderr.write(`[dev] ${error instanceof Error ? error.message : String(error)}\n`);
  await shutdown(1);
});
