// A connection that PostgreSQL drops while the pool has lent it out must not take the process down (src/db/pool.ts):
// the query in flight fails, the error is logged, the pool goes on with a new connection. The PostgreSQL fault test
// once lost its API process this way (a pipelined participant insert during the restart).
import { Writable } from 'node:stream';
import pg from 'pg';
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
