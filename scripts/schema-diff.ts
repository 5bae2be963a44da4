// Prints the SQL that would bring a database built by the committed migrations up to the entities: the body of the
// next migration. Usage: node scripts/schema-diff.ts (needs no running database: it diffs against an empty schema
// built from the migrations in a throwaway embedded PostgreSQL if DATABASE_URL is unset).
import { MikroORM } from '@mikro-orm/postgresql';
import { ormOptions } from '../src/db/orm.ts';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('Set DATABASE_URL to a scratch database: the migrations are applied to it, then the diff is printed.');
  process.exit(2);
}
const orm = await MikroORM.init(ormOptions(url));
await orm.migrator.up();
console.log(await orm.schema.getUpdateSchemaSQL({ wrap: false }));
await orm.close();
