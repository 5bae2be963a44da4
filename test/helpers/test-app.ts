import type { Express } from 'express';
import { Writable } from 'node:stream';
import supertest from 'supertest';
import { createApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createServices, type Services } from '../../src/services/container.ts';
import { ensureBuckets } from '../../src/storage/s3-client.ts';
import { createTestDatabase } from '../harness/database.ts';

export const ADMIN_KEY = 'test-admin-key-0123456789';

export interface TestApp {
  app: Express;
  services: Services;
  config: Config;
  /** The fresh database's URL (for a worker process serving this app). */
  databaseUrl: string;
  request: ReturnType<typeof supertest>;
  /** Every log line the app wrote, as text (to check that secrets never reach the logs). */
  logs: () => string;
  close(): Promise<void>;
}

/**
 * The real app on its own fresh database, against the harness's Temporal and SeaweedFS. Responses are validated
 * against spec/openapi.yaml (VALIDATE_RESPONSES defaults on under NODE_ENV=test): a body that breaks the contract is a 500.
 */
export async function createTestApp(env: Record<string, string | undefined> = {}, options: { databaseUrl?: string } = {}): Promise<TestApp> {
  // A database of the test's own (a private PostgreSQL a fault test stops and starts) is the test's to remove.
  const db = options.databaseUrl ? { url: options.databaseUrl, drop: async () => {} } : await createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    ADMIN_API_KEY: ADMIN_KEY,
    S3_ENDPOINT: process.env.S3_ENDPOINT,
    S3_ACCESS_KEY_ID: process.env.S3_ACCESS_KEY_ID,
    S3_SECRET_ACCESS_KEY: process.env.S3_SECRET_ACCESS_KEY,
    S3_REGION: process.env.S3_REGION,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    // Every test calls from loopback and many send wrong credentials on purpose: the per-address limit of failed
    // credentials (docs/decisions.md §14) would refuse them after 60. Tests of that limit set their own.
    AUTH_FAILURE_LIMIT_PER_MINUTE: '1000000',
    // Recordings are downloaded from the development media server and local stand-ins on loopback (docs/decisions.md §7);
    // a production configuration refuses the setting, so a test of production leaves it out.
    ...(env.NODE_ENV === 'production' ? {} : { SSRF_ALLOW_LOOPBACK: 'true' }),
    ...env,
    LOG_LEVEL: 'info',
  });
  let logText = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      logText += chunk.toString();
      done();
    },
  });
  const logger = createLogger('info', sink);
  const services = await createServices(config, logger, db.url);
  await ensureBuckets(services.s3, config.s3).catch(() => {}); // a test may point S3 somewhere unreachable on purpose
  const app = createApp(services);
  return {
    app,
    services,
    config,
    databaseUrl: db.url,
    request: supertest(app),
    logs: () => logText,
    async close() {
      await services.close();
      await db.drop();
    },
  };
}
