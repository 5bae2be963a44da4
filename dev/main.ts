// `node dev/main.ts <role> [options]`: src/main.ts for development outside `npm run dev` (the operator commands
// `npm run rotate-signing-key` and `npm run reseal-secrets`, or an API started by hand). When DATABASE_URL is unset it
// first starts the embedded PostgreSQL `npm run dev` uses (scripts/stack/postgres.ts: the cluster in .data/postgres,
// port DEV_POSTGRES_PORT or 54329, user and password `postgres`), so both see the same data; then it runs src/main.ts
// with DATABASE_URL pointing there. The product (src/main.ts, dist/main.js) requires DATABASE_URL and loads nothing
// from dev/ or scripts/.
//
// The cluster stops when this process exits, however src/main.ts ends it: the launcher gives it a parent-death signal
// (scripts/stack/process.ts), PostgreSQL's fast shutdown.
import { startPostgres } from '../scripts/stack/postgres.ts';

if (!process.env.DATABASE_URL && process.env.NODE_ENV !== 'production') {
  const port = Number(process.env.DEV_POSTGRES_PORT ?? 54329);
  const server = await startPostgres({ dataDir: '.data/postgres', port, user: 'postgres', password: 'postgres' });
  await server.createDatabase('convene');
  process.env.DATABASE_URL = server.url('convene');
  console.error(`DATABASE_URL unset: started embedded PostgreSQL on port ${port} (data in .data/postgres)`);
}

await import('../src/main.ts');
