import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, defineConfig, type Options } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { Logger } from 'pino';
import { ENTITIES } from './entities.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { provideMigrationSecrets } from './migrations/migration-secrets.ts';
import type { SecretBox } from '../security/secret-box.ts';

export type Orm = MikroORM;

// Any fixed number works; it only has to be the same for every instance so only one migrates at a time.
const MIGRATION_LOCK_KEY = 7_361_001;

export function ormOptions(clientUrl: string): Options {
  return defineConfig({
    clientUrl,
    entities: ENTITIES,
    extensions: [Migrator],
    // Listed explicitly, not discovered from the file system: the same list works from src/ (tests, dev) and dist/.
    migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    pool: { min: 0, max: 10 },
    // Entities are plain data validated by the OpenAPI layer; MikroORM should not guess types at run time.
    discovery: { warnWhenNoEntities: true },
  });
}

/**
 * Connects and applies pending migrations, one instance at a time (a PostgreSQL advisory lock). `secrets`: the
 * SECRETS_KEY box, for migrations that re-seal stored secrets (src/db/migrations/migration-secrets.ts).
 */
export async function openDatabase(clientUrl: string, logger: Logger, secrets?: SecretBox): Promise<Orm> {
  const lock = new pg.Client({ connectionString: clientUrl });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const orm = await MikroORM.init(ormOptions(clientUrl));
    provideMigrationSecrets(secrets);
    const applied = await orm.migrator.up().finally(() => provideMigrationSecrets(undefined));
    if (applied.length > 0) logger.info({ migrations: applied.map((m) => m.name) }, 'database migrated');
    return orm;
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
    await lock.end();
  }
}
