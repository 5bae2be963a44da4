// Convene's one entry point; the role is the first argument:
//   api     the HTTP API and the WebSocket gateway
//   worker  the Temporal worker that runs workflows/ and src/activities/
//   rotate-signing-key  an operator command: adds a JWT signing key and retires the expired ones (with --retire-now:
//                       every older one, for a leaked key), then exits
//   reseal-secrets      an operator command: re-seals every stored secret with the newest SECRETS_KEY key, then exits
// Any number of api and worker processes may run against the same PostgreSQL, Temporal and S3.
//
// Each role imports what it runs when it starts (the `import()`s below), not every role's code up front: an operator
// command does not load the HTTP stack or the Temporal worker (about 0.9 instead of 2.6 s of CPU before it does anything),
// an API process not the worker, a worker not the HTTP validator.
import type { Server } from 'node:http';
import { enableCompileCache } from 'node:module';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { startTracing } from './tracing/tracing.ts';

// V8 keeps the code it compiled for the modules imported from here on (the role's, most of the process) on disk, in
// NODE_COMPILE_CACHE or the system's temporary folder, and the next start on the machine reuses it: the worker's and
// the API's imports took 2.2 s of CPU cold and 1.35 s warm. Node checks each entry against its source, and a cache it
// cannot use or write is skipped without a word.
enableCompileCache();

type Stop = () => Promise<void>;

async function main(role: string | undefined): Promise<void> {
  const config = loadConfig();
  // Before any connection or server: OTLP/HTTP export only when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/decisions.md §12).
  const tracing = role === 'api' || role === 'worker' ? await startTracing(role === 'api' ? 'convene-api' : 'convene-worker', config.tracing) : undefined;
  const logger = createLogger(config.logLevel);
  const databaseUrl = requireDatabaseUrl(config);
  const stops: Stop[] = [];
  if (tracing) stops.push(() => tracing.shutdown()); // last: the spans of the shutdown itself are exported too
  onShutdown(logger, stops);

  if (role === 'api') stops.unshift(...(await runApi(config, logger, databaseUrl)));
  else if (role === 'worker') {
    const { runWorker } = await import('./worker.ts');
    stops.unshift(await runWorker(config, logger, databaseUrl));
  }
  else if (role === 'rotate-signing-key' || role === 'reseal-secrets') {
    const options = process.argv.slice(3);
    const known = role === 'rotate-signing-key' ? ['--retire-now'] : [];
    const unknown = options.find((o) => !known.includes(o));
    if (unknown) throw new ConfigError(`Unknown option "${unknown}" for ${role}${known.length ? ` (known: ${known.join(', ')})` : ''}`);
    const ok = await runOperatorCommand(role, options, config, logger, databaseUrl);
    process.exit(ok ? 0 : 1);
  } else throw new Error(`Unknown role "${role ?? ''}": use "api", "worker", "rotate-signing-key" or "reseal-secrets"`);
}

/**
 * The operator commands (docs/security.md); each prints what it did as JSON.
 * `rotate-signing-key`: a new key that every instance loads at once (within a minute should a notification be lost)
 * and that signs from `signsFrom` on; older keys keep verifying until their tokens' longest lifetime has passed.
 * With `--retire-now` the new key signs at once and every older key is deleted: their tokens are refused.
 * `reseal-secrets`: every stored sealed value sealed again with the first SECRETS_KEY key; false when some did not open.
 */
async function runOperatorCommand(role: string, options: string[], config: Config, logger: Logger, databaseUrl: string): Promise<boolean> {
  const [{ SecretBox }, { openDatabase }, { keyRotationPolicy, rotateSigningKey }, { resealSecrets }] = await Promise.all([
    import('./security/secret-box.ts'),
    import('./db/orm.ts'),
    import('./db/signing-keys.ts'),
    import('./services/reseal-secrets.ts'),
  ]);
  const box = new SecretBox(config.secretsKey);
  const orm = await openDatabase(databaseUrl, logger, box);
  try {
    if (role === 'reseal-secrets') {
      const report = await resealSecrets(orm.em.fork(), box);
      console.log(JSON.stringify(report, null, 2));
      return report.failed.length === 0;
    }
    const rotation = await rotateSigningKey(orm.em.fork(), box, keyRotationPolicy(config.tokens), { retireNow: options.includes('--retire-now') });
    console.log(JSON.stringify(rotation, null, 2));
    return true;
  } finally {
    await orm.close();
  }
}

async function runApi(config: Config, logger: Logger, databaseUrl: string): Promise<Stop[]> {
  const [{ createApp, createAuthFailureLimiter }, { createHttpServer }, { attachGateway }, { createServices }, { ensureBuckets }] = await Promise.all([
    import('./app.ts'),
    import('./http/server.ts'),
    import('./realtime/gateway.ts'),
    import('./services/container.ts'),
    import('./storage/s3-client.ts'),
  ]);
  const services = await createServices(config, logger, databaseUrl);
  // An object store that is down at start-up is reported by /readyz rather than keeping the API down.
  await ensureBuckets(services.s3, config.s3).catch((err) => logger.error({ err: String(err) }, 'object store unreachable at start-up; buckets not checked'));
  const authFailures = createAuthFailureLimiter(services);
  const server: Server = createHttpServer(createApp({ ...services, authFailures }), config.http);
  // Room events flow, and the gateway is attached, before the port opens: an upgrade that came earlier would be refused.
  await services.roomBus.listen();
  const gateway = attachGateway(
    server,
    {
      orm: services.orm,
      tokens: services.tokens,
      tenants: services.tenants,
      wsOriginPatterns: config.wsOriginPatterns,
      bus: services.roomBus,
      timer: services.emptyRoomTimer,
      logger,
      authFailures,
    },
    {
      maxSocketsPerParticipant: config.ws.maxSocketsPerParticipant,
      upgradesPerAddressPerMinute: config.ws.upgradesPerAddressPerMinute,
      presenceStaleAfterSeconds: config.ws.presenceStaleAfterSeconds,
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, resolve);
  });
  logger.info({ port: config.port, url: config.publicBaseUrl }, 'Convene API listening');
  const stopServer: Stop = async () => {
    // Sockets first, with 1001, so their departures are recorded while the database is still there.
    await gateway.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  };
  return [stopServer, () => services.close()];
}

/**
 * DATABASE_URL, which the product requires. In development `npm run dev` sets it, and `node dev/main.ts <role>` starts
 * an embedded PostgreSQL when it is unset (the product never loads that launcher: docs/architecture.md habit 16).
 */
function requireDatabaseUrl(config: Config): string {
  if (config.databaseUrl) return config.databaseUrl;
  if (config.nodeEnv === 'production') throw new ConfigError('Invalid DATABASE_URL: required in production');
  throw new ConfigError('Invalid DATABASE_URL: required (`npm run dev` sets it; `node dev/main.ts <role>` starts an embedded PostgreSQL when it is unset)');
}

/** Ctrl-C / SIGTERM: stop taking work, drain, close connections, in order. A second signal exits at once. */
function onShutdown(logger: Logger, stops: Stop[]): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    for (const stop of stops) {
      await stop().catch((err) => logger.error({ err }, 'error during shutdown'));
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main(process.argv[2]).catch((err) => {
  // Entry points fail loudly: print why and exit non-zero.
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
