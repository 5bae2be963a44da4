import type { EntityManager } from '@mikro-orm/postgresql';
import { resealNotifiedSource } from '../modules/recordings/recording-source.ts';
import { resealConfig } from '../modules/tenants/tenant-config.secrets.ts';
import type { StoredTenantConfig } from '../modules/tenants/tenant-config.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { resealSigningKey } from '../db/signing-keys.ts';

// The operator's `reseal-secrets` (docs/security.md "Sealing keys"): every stored sealed value is sealed again with
// the newest SECRETS_KEY key, so an older key can be dropped from the list. The sealed values live in three places:
// a tenant's config secrets, a signing key's private half, and a recording's notification link (kept until its file
// is stored). Each row is re-sealed in a transaction of its own that locks it, so a config patched meanwhile is
// neither lost nor overwritten with stale secrets. Values already sealed with the newest key are left alone: the
// command can be run again (after a failure, or while instances still on an older SECRETS_KEY kept sealing).

export interface ResealReport {
  /** The key every value is now sealed with. */
  sealingKeyId: string;
  /** Rows re-sealed, per kind. */
  resealed: { tenants: number; signingKeys: number; recordings: number };
  /** Rows whose value did not open (a key SECRETS_KEY does not list, or a damaged value): left as they are. */
  failed: Array<{ kind: keyof ResealReport['resealed']; id: string; reason: string }>;
}

interface SealedPlace {
  kind: keyof ResealReport['resealed'];
  /** The next page of candidate ids after `after`, in order. */
  ids: string;
  /** The row's sealed value, locked for this transaction. */
  lock: string;
  update: string;
  /** The value re-sealed, or undefined when it already was. */
  reseal: (box: SecretBox, id: string, value: never) => unknown;
}

const PAGE = 200;

const PLACES: SealedPlace[] = [
  {
    kind: 'tenants',
    ids: `select id from tenants where config->'post_meeting_webhook' is not null and id::text > ? order by id::text limit ${PAGE}`,
    lock: 'select config as value from tenants where id = ? for no key update',
    update: 'update tenants set config = ? where id = ?',
    reseal: (box, id, config: StoredTenantConfig) => {
      const next = resealConfig(config, box, id);
      return JSON.stringify(next) === JSON.stringify(config) ? undefined : JSON.stringify(next);
    },
  },
  {
    kind: 'signingKeys',
    ids: `select kid as id from signing_keys where kid > ? order by kid limit ${PAGE}`,
    lock: 'select private_jwk_sealed as value from signing_keys where kid = ? for no key update',
    update: 'update signing_keys set private_jwk_sealed = ? where kid = ?',
    reseal: (box, kid, sealed: string) => (box.needsReseal(sealed) ? resealSigningKey(box, kid, sealed) : undefined),
  },
  {
    kind: 'recordings',
    ids: `select id from recordings where source_sealed is not null and id::text > ? order by id::text limit ${PAGE}`,
    lock: 'select source_sealed as value from recordings where id = ? for no key update',
    update: 'update recordings set source_sealed = ? where id = ?',
    reseal: (box, id, sealed: string | null) => (sealed && box.needsReseal(sealed) ? resealNotifiedSource(box, id, sealed) : undefined),
  },
];

export async function resealSecrets(em: EntityManager, box: SecretBox): Promise<ResealReport> {
  const report: ResealReport = { sealingKeyId: box.sealingKeyId, resealed: { tenants: 0, signingKeys: 0, recordings: 0 }, failed: [] };
  for (const place of PLACES) {
    let after = '';
    for (;;) {
      const page: Array<{ id: string }> = await em.getConnection().execute(place.ids, [after]);
      for (const { id } of page) {
        try {
          const changed = await em.fork().transactional(async (tx) => {
            const [row]: Array<{ value: never }> = await tx.execute(place.lock, [id]);
            const next = row ? place.reseal(box, id, row.value) : undefined;
            if (next !== undefined) await tx.execute(place.update, [next, id]);
            return next !== undefined;
          });
          if (changed) report.resealed[place.kind] += 1;
        } catch (err) {
          report.failed.push({ kind: place.kind, id, reason: (err as Error).message });
        }
      }
      if (page.length < PAGE) break;
      after = String(page[page.length - 1].id);
    }
  }
  return report;
}
