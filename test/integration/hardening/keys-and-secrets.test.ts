// Keys you can rotate (docs/decisions.md §4): signing-key rotation as an operator command, and sealed secrets bound to their
// row and field, with the stored ones re-sealed by a migration.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { MikroORM } from '@mikro-orm/postgresql';
import { decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import { ormOptions } from '../../../src/db/orm.ts';
import { provideMigrationSecrets } from '../../../src/db/migrations/migration-secrets.ts';
import { keyRotationPolicy, loadSigningKeys, rotateSigningKey } from '../../../src/db/signing-keys.ts';
import { TenantSchema } from '../../../src/modules/tenants/tenant.entity.ts';
import { SecretBox, SecretBoxError } from '../../../src/security/secret-box.ts';
import { createTestDatabase } from '../../harness/database.ts';
import { addParticipant, bearer, createRoom, createTenant, patchConfig } from '../../helpers/fixtures.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
}, 60_000);
afterAll(() => t?.close());

const kidOf = (token: string) => decodeProtectedHeader(token).kid;
const jwksKids = async () => ((await t.request.get('/api/v1/.well-known/jwks.json')).body.keys as Array<{ kid: string }>).map((k) => k.kid).sort();

describe('signing-key rotation', () => {
  test('the new key is published at once and signs after the activation delay; the old one verifies until the longest token lifetime has passed, then is retired', async () => {
    const em = () => t.services.orm.em.fork();
    const box = new SecretBox(t.config.secretsKey);
    const policy = keyRotationPolicy(t.config.tokens);
    const reload = async (at: number) => t.services.tokens.useKeys(await loadSigningKeys(em(), box, policy, at));
    const tenant = await createTenant(t);
    const room = await createRoom(t, tenant);
    const ada = await addParticipant(t, tenant, room.id, { display_name: 'Ada' });
    const oldKid = kidOf(ada.auth_token)!;
    expect(await jwksKids()).toEqual([oldKid]);

    const rotation = await rotateSigningKey(em(), box, policy);
    expect(rotation.kid).not.toBe(oldKid);
    expect(rotation.verifying.map((k) => k.kid).sort()).toEqual([oldKid, rotation.kid].sort());
    expect(rotation.retired).toEqual([]);

    // Reloaded now (as every instance does within a minute): both published, the old one still signs.
    await reload(Date.now());
    expect(await jwksKids()).toEqual([oldKid, rotation.kid].sort());
    expect(kidOf((await addParticipant(t, tenant, room.id, { display_name: 'Bo' })).auth_token)).toBe(oldKid);

    // After the activation delay the new key signs; tokens of the old one still work.
    const signsFrom = Date.parse(rotation.signsFrom);
    await reload(signsFrom + 1);
    const cy = await addParticipant(t, tenant, room.id, { display_name: 'Cy' });
    expect(kidOf(cy.auth_token)).toBe(rotation.kid);
    expect((await t.request.get(`/api/v1/rooms/${room.id}`).set(bearer(ada.auth_token))).status).toBe(200);
    expect(await jwksKids()).toEqual([oldKid, rotation.kid].sort());

    // Once every token the old key signed has expired, it is retired: gone from JWKS, and its tokens are refused.
    const retiredAt = signsFrom + policy.reloadMs + policy.maxTokenLifetimeMs + 1;
    await reload(retiredAt - 2);
    expect(await jwksKids()).toEqual([oldKid, rotation.kid].sort());
    await reload(retiredAt);
    expect(await jwksKids()).toEqual([rotation.kid]);
    const refused = await t.request.get(`/api/v1/rooms/${room.id}`).set(bearer(ada.auth_token));
    expect(refused.status).toBe(401);
    expect((await t.request.get(`/api/v1/rooms/${room.id}`).set(bearer(cy.auth_token))).status).toBe(200);

    // The next rotation deletes the retired key's row.
    const next = await rotateSigningKey(em(), box, policy, retiredAt);
    expect(next.retired).toEqual([oldKid]);
  });

  test('a reload and a rotation each need one connection: with a pool of one they finish', async () => {
    // Reloads queued while PostgreSQL hung once filled the API's pool with transactions each waiting for a second
    // connection (the lock was taken outside the transaction): the API stayed unready after the database came back.
    const orm = await MikroORM.init({ ...ormOptions(t.databaseUrl), pool: { min: 0, max: 1 } });
    try {
      const box = new SecretBox(t.config.secretsKey);
      const policy = keyRotationPolicy(t.config.tokens);
      const within = async <T>(work: Promise<T>) => {
        let timer: NodeJS.Timeout | undefined;
        const stuck = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('stuck: the pool of one was already in use')), 10_000)));
        try {
          return await Promise.race([work, stuck]);
        } finally {
          clearTimeout(timer);
        }
      };
      expect((await within(loadSigningKeys(orm.em.fork(), box, policy))).length).toBeGreaterThan(0);
      expect((await within(rotateSigningKey(orm.em.fork(), box, policy))).kid).toEqual(expect.any(String));
    } finally {
      await orm.close();
    }
  }, 60_000);

  test('the operator command: `node src/main.ts rotate-signing-key` adds a key and prints what it did', async () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const before = await t.services.orm.em.getConnection().execute('select count(*)::int as n from signing_keys');
    const child = spawn(process.execPath, ['src/main.ts', 'rotate-signing-key'], {
      cwd: root,
      env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: t.databaseUrl, LOG_LEVEL: 'silent', SECRETS_KEY: t.config.secretsKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect({ code, out }).toMatchObject({ code: 0 });
    const printed = JSON.parse(out) as { kid: string; signsFrom: string };
    expect(Date.parse(printed.signsFrom)).toBeGreaterThan(Date.now());
    const after: Array<{ kid: string }> = await t.services.orm.em.getConnection().execute('select kid from signing_keys');
    expect(after).toHaveLength(before[0].n + 1);
    expect(after.map((r) => r.kid)).toContain(printed.kid);
  }, 60_000);
});

describe('sealed secrets bound to their row and field', () => {
  test('a tenant secret is stored bound (v2); copied into another tenant’s row it does not open', async () => {
    const a = await createTenant(t, { name: 'A' });
    const b = await createTenant(t, { name: 'B' });
    const hook = (secret: string) => ({ post_meeting_webhook: { enabled: true, url: 'http://127.0.0.1:9/hook', secret } });
    await patchConfig(t, a, hook('whsec_tenant_a_secret'));
    await patchConfig(t, b, hook('whsec_tenant_b_secret'));
    const sql = t.services.orm.em.getConnection();
    const [rowA] = await sql.execute(`select config->'post_meeting_webhook'->>'secret' as secret from tenants where id = ?`, [a.id]);
    expect(rowA.secret).toMatch(/^v2\./);

    const tenants = t.services.tenants;
    const load = async (id: string) => (await t.services.orm.em.fork().findOne(TenantSchema, { id }))!;
    expect(tenants.effectiveConfig(await load(a.id)).post_meeting_webhook?.secret).toBe('whsec_tenant_a_secret');
    await sql.execute(`update tenants set config = jsonb_set(config, '{post_meeting_webhook,secret}', to_jsonb(?::text)) where id = ?`, [rowA.secret, b.id]);
    const moved = await load(b.id);
    expect(() => tenants.effectiveConfig(moved)).toThrow(SecretBoxError);
  });

  test('the migration re-seals stored v1 values: old format readable during it, bound afterwards', async () => {
    const db = await createTestDatabase();
    const orm = await MikroORM.init(ormOptions(db.url));
    try {
      await orm.migrator.up({ to: '20261123-rate-limits' });
      const box = new SecretBox(t.config.secretsKey);
      const tenantId = randomUUID();
      const legacyConfig = {
        post_meeting_webhook: { enabled: true, url: 'http://127.0.0.1:9/hook', secret: box.seal('whsec_legacy'), ai: { api_key: box.seal('sk-legacy-ai') } },
        allowed_origins: ['https://app.example'],
      };
      const sql = orm.em.getConnection();
      await sql.execute(
        `insert into tenants (id, name, api_key_hash, api_key_id, max_concurrent_rooms, max_participants_per_room, max_recording_duration_minutes, config, created_at, updated_at)
         values (?, 'Legacy', ?, ?, 10, 100, 240, ?, now(), now())`,
        [tenantId, 'f'.repeat(64), randomUUID(), JSON.stringify(legacyConfig)],
      );
      const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
      const kid = 'legacy-kid';
      await sql.execute(`insert into signing_keys (kid, private_jwk_sealed, public_jwk, created_at) values (?, ?, ?, now())`, [
        kid,
        box.seal(JSON.stringify(await exportJWK(privateKey))),
        JSON.stringify(await exportJWK(publicKey)),
      ]);

      provideMigrationSecrets(box);
      try {
        await orm.migrator.up();
      } finally {
        provideMigrationSecrets(undefined);
      }

      const [tenant] = await sql.execute(`select config from tenants where id = ?`, [tenantId]);
      const webhook = tenant.config.post_meeting_webhook;
      expect(webhook.secret).toMatch(/^v2\./);
      expect(box.open(webhook.secret, `tenant:${tenantId}:post_meeting_webhook.secret`)).toBe('whsec_legacy');
      expect(box.open(webhook.ai.api_key, `tenant:${tenantId}:post_meeting_webhook.ai.api_key`)).toBe('sk-legacy-ai');
      expect(() => box.open(webhook.secret, `tenant:${randomUUID()}:post_meeting_webhook.secret`)).toThrow(SecretBoxError);
      expect(() => box.open(webhook.ai.api_key, `tenant:${tenantId}:post_meeting_webhook.secret`)).toThrow(SecretBoxError);
      expect(tenant.config.allowed_origins).toEqual(['https://app.example']);
      const [key] = await sql.execute(`select private_jwk_sealed from signing_keys where kid = ?`, [kid]);
      expect(key.private_jwk_sealed).toMatch(/^v2\./);
      const keys = await loadSigningKeys(orm.em.fork(), box, keyRotationPolicy(t.config.tokens));
      expect(keys[0]).toMatchObject({ kid, privateJwk: await exportJWK(privateKey) });
    } finally {
      await orm.close();
      await db.drop();
    }
  });
});
