// A connection that PostgreSQL drops while the pool has lent it out must not take the process down (src/db/pool.ts):
// the query in flight fails, the error is logged, the pool goes on with a new connection. The PostgreSQL fault test
// once lost its API process this way (a pipelined participant insert during the restart).
import { Writable } from 'node:stream';
import pg from 'pg';
import { openDatabase } from '../../src/db/orm.ts';
import { createPool } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { createTestDatabase } from '../harness/database.ts';

test('a lent connection that PostgreSQL terminates is an error logged and a query rejected, not an uncaught exception', async () => {
  const db = await createTestDatabase();
  let logged = '';
  const logger = createLogger('warn', new Writable({ write: (chunk, _e, done) => ((logged += String(chunk)), done()) }));
  const pool = createPool({ name: 'probe', logger, connectionString: db.url, max: 2 });
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  try {
    const client = await pool.connect();
    const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    // The expectation is attached before the termination: the query may reject before admin.query returns, and a
    // rejection without a handler at that moment is an unhandled one.
    const sleeping = expect(client.query('select pg_sleep(5)')).rejects.toThrow();
    await admin.query('select pg_terminate_backend($1)', [pid]);
    await sleeping;
    await new Promise((r) => setTimeout(r, 100)); // the 'error' event follows the connection's end
    client.release(true);
    expect(logged).toContain('PostgreSQL connection error');
    expect((await pool.query('select 1 as one')).rows[0]).toEqual({ one: 1 });
  } finally {
    await admin.end();
    await pool.end();
    await db.drop();
  }
});

// The API's database pool hung on close once in a clean-clone run, after its PostgreSQL was stopped and started
// (test/integration/deliveries/restarts.test.ts): a transaction whose connection PostgreSQL dropped never gave that
// connection back, because kysely 0.29.6 (under MikroORM) released it only when ROLLBACK succeeded, and ROLLBACK on
// a dead connection cannot. Each such transaction cost the pool one of its ten connections for good, and a pool that
// still lends one out waits for it forever on close. package.json's `overrides` takes kysely 0.29.9, which releases
// the connection whatever ROLLBACK does (docs/development.md, "Dependencies held to a version").
test('a transaction whose connection PostgreSQL drops gives its connection back to the pool', async () => {
  const db = await createTestDatabase();
  const orm = await openDatabase(db.url, createLogger('silent'));
  const pool = (await orm.em.getConnection().getNativeClient()) as pg.Pool;
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  let closed = false;
  try {
    const dropped = orm.em.fork().transactional(async (tx) => {
      const context = tx.getTransactionContext();
      const [{ pid }] = await tx.getConnection().execute<Array<{ pid: number }>>('select pg_backend_pid() as pid', [], 'all', context);
      await admin.query('select pg_terminate_backend($1)', [pid]);
      await tx.getConnection().execute('select 1', [], 'all', context);
    });
    await expect(dropped).rejects.toThrow();
    // Nothing lent out: the dead connection left the pool instead of staying checked out.
    expect(pool.totalCount - pool.idleCount).toBe(0);
    expect(await orm.em.fork().getConnection().execute('select 1 as one')).toEqual([{ one: 1 }]);
    // With the connection still lent out, close never returned.
    await orm.close();
    closed = true;
  } finally {
    await admin.end();
    if (closed) await db.drop();
  }
});
