import pg from 'pg';
import type { Logger } from '../logger.ts';

/**
 * A `pg` pool whose connections cannot take the process down when PostgreSQL goes away. node-postgres emits `'error'`
 * on a client whose connection ends unexpectedly, and `pg-pool` leaves a checked-out client without a listener (an
 * idle one's errors it re-emits on the pool): an `'error'` nobody listens to is an uncaught exception. The queries in
 * flight reject on their own, so logging is all there is to do. (MikroORM guards its own pool the same way.)
 */
export function createPool(config: pg.PoolConfig & { name: string; logger: Logger }): pg.Pool {
  const { name, logger, ...options } = config;
  const pool = new pg.Pool(options);
  const warn = (err: Error) => logger.warn({ err, pool: name }, 'PostgreSQL connection error');
  pool.on('error', warn);
  pool.on('connect', (client) => client.on('error', warn));
  return pool;
}
