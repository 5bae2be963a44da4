// Proves the harness (test/harness/global-setup.ts) hands every test file real, working services.
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Connection } from '@temporalio/client';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../harness/database.ts';
import { createTestBucket, testS3Config, type TestBucket } from '../harness/s3.ts';

describe('PostgreSQL', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });

  test('a fresh test database takes writes and answers queries', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query('CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
      await client.query('INSERT INTO notes (body) VALUES ($1), ($2)', ['first', 'second']);
      const { rows } = await client.query('SELECT current_database() AS name, count(*)::int AS notes FROM notes');
      expect(rows).toEqual([{ name: db.name, notes: 2 }]);
    } finally {
      await client.end();
    }
  });

  test('drop() removes the database even with a connection still open', async () => {
    const other = await createTestDatabase();
    const lingering = new pg.Client({ connectionString: other.url });
    lingering.on('error', () => undefined);
    await lingering.connect();
    await other.drop();
    const admin = new pg.Client({ connectionString: process.env.TEST_PG_URL });
    await admin.connect();
    try {
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [other.name]);
      expect(rowCount).toBe(0);
    } finally {
      await admin.end();
      await lingering.end().catch(() => undefined);
    }
  });

  afterAll(async () => {
    await db.drop();
  });
});

describe('Temporal', () => {
  test('the dev server answers and has the default namespace', async () => {
    const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
    try {
      const described = await connection.workflowService.describeNamespace({ namespace: 'default' });
      expect(described.namespaceInfo?.name).toBe('default');
    } finally {
      await connection.close();
    }
  });
});

describe('SeaweedFS (S3)', () => {
  let client: S3Client;
  let bucket: TestBucket;
  beforeAll(async () => {
    client = new S3Client(testS3Config());
    bucket = await createTestBucket(client);
  });

  test('an object put is read back byte for byte', async () => {
    const body = Buffer.from(`recording ${Date.now()} \u00e9\u4e2d`, 'utf8');
    await client.send(new PutObjectCommand({ Bucket: bucket.name, Key: 'rooms/r1/rec.txt', Body: body, ContentType: 'text/plain' }));
    const got = await client.send(new GetObjectCommand({ Bucket: bucket.name, Key: 'rooms/r1/rec.txt' }));
    expect(Buffer.from(await got.Body!.transformToByteArray())).toEqual(body);
    expect(got.ContentType).toBe('text/plain');
  });

  test('the default buckets exist', async () => {
    for (const name of [process.env.S3_BUCKET, process.env.S3_ARCHIVE_BUCKET]) {
      await client.send(new PutObjectCommand({ Bucket: name, Key: 'stack-test/probe', Body: 'x' }));
    }
  });

  test('requests signed with a wrong secret are refused', async () => {
    const config = testS3Config();
    const intruder = new S3Client({
      ...config,
      credentials: { accessKeyId: process.env.S3_ACCESS_KEY_ID!, secretAccessKey: 'not-the-secret' },
      maxAttempts: 1,
    });
    await expect(
      intruder.send(new GetObjectCommand({ Bucket: bucket.name, Key: 'rooms/r1/rec.txt' })),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    intruder.destroy();
  });

  afterAll(async () => {
    await bucket?.drop();
    client?.destroy();
  });
});
