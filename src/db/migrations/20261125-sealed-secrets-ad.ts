import { Migration } from '@mikro-orm/migrations';
import { mapConfigSecrets, secretContext } from '../../modules/tenants/tenant-config.secrets.ts';
import type { StoredTenantConfig } from '../../modules/tenants/tenant-config.ts';
import { isUnboundSealed } from '../../security/secret-box.ts';
import { migrationSecrets } from './migration-secrets.ts';

const NAME = '20261125-sealed-secrets-ad';

// Sealed secrets bound to their row and field (src/security/secret-box.ts, v2): every stored v1 value (sealed without
// associated data) is opened as v1 and sealed again with its context: a tenant's webhook secret and provider keys with
// `tenant:<id>:<field>`, a signing key's private half with `signing_key:<kid>:private_jwk`. Values already bound are
// left alone, so the migration is safe to run on data written by either version. Runs in the migration transaction:
// all or nothing.
export class Migration20261125SealedSecretsAd extends Migration {
  override async up(): Promise<void> {
    const tenants = (await this.execute(`select id, config from tenants where config->'post_meeting_webhook' is not null`)) as Array<{ id: string; config: StoredTenantConfig }>;
    for (const tenant of tenants) {
      let changed = false;
      const config = mapConfigSecrets(tenant.config, (sealed, field) => {
        if (!isUnboundSealed(sealed)) return sealed;
        changed = true;
        const box = migrationSecrets(NAME);
        return box.seal(box.open(sealed), secretContext(tenant.id, field));
      });
      if (changed) await this.execute('update tenants set config = ? where id = ?', [JSON.stringify(config), tenant.id]);
    }
    const keys = (await this.execute('select kid, private_jwk_sealed from signing_keys')) as Array<{ kid: string; private_jwk_sealed: string }>;
    for (const key of keys) {
      if (!isUnboundSealed(key.private_jwk_sealed)) continue;
      const box = migrationSecrets(NAME);
      const resealed = box.seal(box.open(key.private_jwk_sealed), `signing_key:${key.kid}:private_jwk`);
      await this.execute('update signing_keys set private_jwk_sealed = ? where kid = ?', [resealed, key.kid]);
    }
  }
}
