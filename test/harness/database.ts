// A fresh, uniquely named database on the harness's PostgreSQL, for one test file (or one test).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { harnessEnv } from './env.ts';

export interface TestDatabase {
  name: string;
  url: string;
  /** Drops the database, closing any connection still open to it. */
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = harnessEnv('TEST_PG_URL');
  const name = `test_${process.env.JEST_WORKER_ID ?? '0'}_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await asAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () =>
      asAdmin(adminUrl, (client) =>
        client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`),
      ),
  };
}

async function asAdmin(adminUrl: string, work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}
