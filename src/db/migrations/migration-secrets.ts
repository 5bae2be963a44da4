import type { SecretBox } from '../../security/secret-box.ts';

// Migrations that re-seal secrets need SECRETS_KEY, but MikroORM constructs migrations itself, with no way to hand
// them a dependency. openDatabase (src/db/orm.ts) puts the box here, under its migration lock, for the run.
let box: SecretBox | undefined;

export function provideMigrationSecrets(value: SecretBox | undefined): void {
  box = value;
}

export function migrationSecrets(migration: string): SecretBox {
  if (!box) throw new Error(`Migration ${migration} re-seals stored secrets and needs SECRETS_KEY: open the database with it`);
  return box;
}
