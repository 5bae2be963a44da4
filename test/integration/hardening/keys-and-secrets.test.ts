// Keys you can rotate (docs/decisions.md §4): signing-key rotation as an operator command (and retiring a leaked key at
// once), sealed secrets bound to their row and field, and sealing keys that rotate (SECRETS_KEY with several keys, and
// the reseal command).
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
import { v7 as uuidv7 } from 'uuid';
import { RecordingSchema } from '../../../src/modules/recordings/recording.entity.ts';
import { openNotifiedSource, sealNotifiedSource } from '../../../src/modules/recordings/recording-source.ts';
import { openConfig } from '../../../src/modules/tenants/tenant-config.secrets.ts';
import { generateSecretsKey } from '../../../src/security/secret-box.ts';
import type { RecordingReadyNotification } from '../../../src/upstream/protocol.ts';
import { createTestDatabase } from '../../harness/database.ts';
import { sealLegacy } from '../../helpers/legacy-sealed.ts';
import { addParticipant, bearer, createRoom, createTenant, patchConfig } from '../../helpers/fixtures.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
}, 60_000);
afterAll(() => t?.close());

const kidOf = (token: string) => decodeProtectedHeader(token).kid;
/** `node src/main.ts <args>` as an operator runs it; its output (stdout and stderr) and exit code. */
async function operatorCommand(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const child = spawn(process.execPath, ['src/main.ts', ...args], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, out };
}

/**
 * Whether `check` holds within 15 s, asked every 100 ms: for what another process's commit changes here through a
 * NOTIFY (milliseconds), well before the periodic reload of signing keys (a minute) could.
 */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  const until = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

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

    // Reloaded when the rotation committed (its NOTIFY; this instance's periodic reload is a minute away): both
    // published, the old one still signs. Waited for, so that reload cannot land after the ones below.
    expect(await eventually(async () => (await jwksKids()).length === 2)).toBe(true);
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
    const next = await rotateSigningKey(em(), box, policy, { now: retiredAt });
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
    const before = await t.services.orm.em.getConnection().execute('select count(*)::int as n from signing_keys');
    const { code, out } = await operatorCommand(['rotate-signing-key'], { DATABASE_URL: t.databaseUrl, SECRETS_KEY: t.config.secretsKey });
    expect({ code, out }).toMatchObject({ code: 0 });
    const printed = JSON.parse(out) as { kid: string; signsFrom: string };
    expect(Date.parse(printed.signsFrom)).toBeGreaterThan(Date.now());
    const after: Array<{ kid: string }> = await t.services.orm.em.getConnection().execute('select kid from signing_keys');
    expect(after).toHaveLength(before[0].n + 1);
    expect(after.map((r) => r.kid)).toContain(printed.kid);
  }, 60_000);

  test('`rotate-signing-key --retire-now` (a leaked key): tokens that verified after a normal rotation are refused at once', async () => {
    const em = () => t.services.orm.em.fork();
    const box = new SecretBox(t.config.secretsKey);
    const tenant = await createTenant(t);
    const room = await createRoom(t, tenant);
    const ada = await addParticipant(t, tenant, room.id, { display_name: 'Ada' });
    const getRoom = (token: string) => t.request.get(`/api/v1/rooms/${room.id}`).set(bearer(token));

    // A normal rotation: the token of the key that signed it keeps verifying.
    await rotateSigningKey(em(), box, keyRotationPolicy(t.config.tokens));
    expect((await getRoom(ada.auth_token)).status).toBe(200);

    // Retired at once from another process, as an operator does: this API instance learns it from the commit's
    // NOTIFY, long before its periodic reload (a minute).
    const { code, out } = await operatorCommand(['rotate-signing-key', '--retire-now'], { DATABASE_URL: t.databaseUrl, SECRETS_KEY: t.config.secretsKey });
    expect({ code, out }).toMatchObject({ code: 0 });
    const rotation = JSON.parse(out) as { kid: string; retired: string[] };
    expect(rotation.retired).toContain(kidOf(ada.auth_token));
    expect(await eventually(async () => (await getRoom(ada.auth_token)).status === 401)).toBe(true);
    expect(await jwksKids()).toEqual([rotation.kid]);
    // The new key signs at once.
    const bo = await addParticipant(t, tenant, room.id, { display_name: 'Bo' });
    expect(kidOf(bo.auth_token)).toBe(rotation.kid);
    expect((await getRoom(bo.auth_token)).status).toBe(200);
  }, 60_000);

  test('an unknown option is refused, naming it, and changes nothing', async () => {
    const before = await t.services.orm.em.getConnection().execute('select count(*)::int as n from signing_keys');
    const { code, out } = await operatorCommand(['rotate-signing-key', '--retire-soon'], { DATABASE_URL: t.databaseUrl, SECRETS_KEY: t.config.secretsKey });
    expect(code).not.toBe(0);
    expect(out).toContain('--retire-soon');
    expect(await t.services.orm.em.getConnection().execute('select count(*)::int as n from signing_keys')).toEqual(before);
  }, 60_000);
});

describe('sealed secrets bound to their row and field', () => {
  test('a tenant secret is stored bound, with the id of the key that sealed it; copied into another tenant’s row it does not open', async () => {
    const a = await createTenant(t, { name: 'A' });
    const b = await createTenant(t, { name: 'B' });
    const hook = (secret: string) => ({ post_meeting_webhook: { enabled: true, url: 'http://127.0.0.1:9/hook', secret } });
    await patchConfig(t, a, hook('whsec_tenant_a_secret'));
    await patchConfig(t, b, hook('whsec_tenant_b_secret'));
    const sql = t.services.orm.em.getConnection();
    const [rowA] = await sql.execute(`select config->'post_meeting_webhook'->>'secret' as secret from tenants where id = ?`, [a.id]);
    expect(rowA.secret).toMatch(/^v3\.k0\./);

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
        post_meeting_webhook: {
          enabled: true,
          url: 'http://127.0.0.1:9/hook',
          secret: sealLegacy(t.config.secretsKey, 'whsec_legacy'),
          ai: { api_key: sealLegacy(t.config.secretsKey, 'sk-legacy-ai') },
        },
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
        sealLegacy(t.config.secretsKey, JSON.stringify(await exportJWK(privateKey))),
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
      expect(webhook.secret).toMatch(/^v3\.k0\./);
      expect(box.open(webhook.secret, `tenant:${tenantId}:post_meeting_webhook.secret`)).toBe('whsec_legacy');
      expect(box.open(webhook.ai.api_key, `tenant:${tenantId}:post_meeting_webhook.ai.api_key`)).toBe('sk-legacy-ai');
      expect(() => box.open(webhook.secret, `tenant:${randomUUID()}:post_meeting_webhook.secret`)).toThrow(SecretBoxError);
      expect(() => box.open(webhook.ai.api_key, `tenant:${tenantId}:post_meeting_webhook.secret`)).toThrow(SecretBoxError);
      expect(tenant.config.allowed_origins).toEqual(['https://app.example']);
      const [key] = await sql.execute(`select private_jwk_sealed from signing_keys where kid = ?`, [kid]);
      expect(key.private_jwk_sealed).toMatch(/^v3\.k0\./);
      const keys = await loadSigningKeys(orm.em.fork(), box, keyRotationPolicy(t.config.tokens));
      expect(keys[0]).toMatchObject({ kid, privateJwk: await exportJWK(privateKey) });
    } finally {
      await orm.close();
      await db.drop();
    }
  });
});

describe('sealing keys rotate (SECRETS_KEY `k2:<new>,k1:<old>`, then reseal-secrets)', () => {
  test('values sealed under k1 open with `k2,k1`; after the command every stored value opens with k2 alone', async () => {
    const k1 = `k1:${generateSecretsKey()}`;
    const k2 = `k2:${generateSecretsKey()}`;
    const db = await createTestDatabase();
    const apps: TestApp[] = [];
    const start = async (secretsKey: string) => {
      const app = await createTestApp({ SECRETS_KEY: secretsKey }, { databaseUrl: db.url });
      apps.push(app);
      return app;
    };
    try {
      // Under k1: a tenant's three secrets, a signing key, a recording's notification link.
      const old = await start(k1);
      const tenant = await createTenant(old);
      const secrets = { secret: 'whsec_sealed_under_k1_0001', transcription: { provider: 'openai', api_key: 'sk-transcription-k1' }, ai: { api_key: 'sk-ai-under-k1' } };
      await patchConfig(old, tenant, { post_meeting_webhook: { enabled: true, url: 'http://127.0.0.1:9/hook', ...secrets } });
      const room = await createRoom(old, tenant);
      const ada = await addParticipant(old, tenant, room.id, { display_name: 'Ada' });
      const recordingId = uuidv7();
      const link = { url: 'http://127.0.0.1:9/rec.wav?sig=under-k1', content_type: 'audio/wav', size_bytes: 10 } as RecordingReadyNotification;
      const em = old.services.orm.em.fork();
      em.create(RecordingSchema, { id: recordingId, tenant: tenant.id, room: room.id, status: 'processing', sourceSealed: sealNotifiedSource(old.services.secretBox, recordingId, link) });
      await em.flush();
      await old.close();

      // `k2,k1`: everything still reads; new values are sealed with k2.
      const both = await start(`${k2},${k1}`);
      const shown = (await both.request.get(`/api/v1/tenants/${tenant.id}`).set(tenant.auth).expect(200)).body.data.config.post_meeting_webhook;
      expect(shown).toMatchObject({ secret: '****0001', transcription: { api_key: '****n-k1' }, ai: { api_key: '****r-k1' } });
      expect((await both.request.get(`/api/v1/rooms/${room.id}`).set(bearer(ada.auth_token))).status).toBe(200);
      const other = await createTenant(both);
      await patchConfig(both, other, { post_meeting_webhook: { enabled: true, url: 'http://127.0.0.1:9/hook', secret: 'whsec_sealed_under_k2_0002' } });
      const sql = both.services.orm.em.getConnection();
      const [otherRow] = await sql.execute(`select config->'post_meeting_webhook'->>'secret' as secret from tenants where id = ?`, [other.id]);
      expect(otherRow.secret).toMatch(/^v3\.k2\./);

      const reseal = await operatorCommand(['reseal-secrets'], { DATABASE_URL: db.url, SECRETS_KEY: `${k2},${k1}` });
      expect(reseal).toMatchObject({ code: 0 });
      expect(JSON.parse(reseal.out)).toEqual({ sealingKeyId: 'k2', resealed: { tenants: 1, signingKeys: 1, recordings: 1 }, failed: [] });

      // Every stored row opens with k2 alone.
      const onlyK2 = new SecretBox(k2);
      for (const row of await sql.execute(`select id, config from tenants`)) {
        const hook = openConfig(row.config, onlyK2, row.id).post_meeting_webhook!;
        expect(hook.secret).toMatch(/^whsec_sealed_under_k[12]_000[12]$/);
      }
      const [tenantRow] = await sql.execute(`select config from tenants where id = ?`, [tenant.id]);
      expect(openConfig(tenantRow.config, onlyK2, tenant.id).post_meeting_webhook).toMatchObject(secrets);
      for (const key of await sql.execute(`select kid, private_jwk_sealed from signing_keys`)) {
        expect(JSON.parse(onlyK2.open(key.private_jwk_sealed, `signing_key:${key.kid}:private_jwk`))).toHaveProperty('d');
      }
      const [recordingRow] = await sql.execute(`select source_sealed from recordings where id = ?`, [recordingId]);
      expect(openNotifiedSource(onlyK2, recordingId, recordingRow.source_sealed)).toMatchObject({ url: link.url });

      // Run again: nothing left to do.
      const again = await operatorCommand(['reseal-secrets'], { DATABASE_URL: db.url, SECRETS_KEY: `${k2},${k1}` });
      expect(JSON.parse(again.out)).toMatchObject({ resealed: { tenants: 0, signingKeys: 0, recordings: 0 }, failed: [] });
      await both.close();

      // An API with k1 dropped serves the same tenant and the same tokens.
      const dropped = await start(k2);
      expect((await dropped.request.get(`/api/v1/tenants/${tenant.id}`).set(tenant.auth)).body.data.config.post_meeting_webhook.secret).toBe('****0001');
      expect((await dropped.request.get(`/api/v1/rooms/${room.id}`).set(bearer(ada.auth_token))).status).toBe(200);
    } finally {
      for (const app of apps) await app.close().catch(() => {});
      await db.drop();
    }
  }, 120_000);

  test('a value whose key SECRETS_KEY does not list is reported by the command, which exits non-zero', async () => {
    const tenant = await createTenant(t);
    await patchConfig(t, tenant, { post_meeting_webhook: { enabled: true, url: 'http://127.0.0.1:9/hook', secret: 'whsec_sealed_under_k0_0003' } });
    const { code, out } = await operatorCommand(['reseal-secrets'], { DATABASE_URL: t.databaseUrl, SECRETS_KEY: `k9:${generateSecretsKey()}` });
    expect(code).toBe(1);
    const report = JSON.parse(out) as { failed: Array<{ kind: string; id: string; reason: string }> };
    expect(report.failed).toContainEqual({ kind: 'tenants', id: tenant.id, reason: expect.stringContaining('"k0", which SECRETS_KEY does not list') });
    // Nothing was damaged: the API with its own key still reads it.
    expect((await t.request.get(`/api/v1/tenants/${tenant.id}`).set(tenant.auth)).body.data.config.post_meeting_webhook.secret).toBe('****0003');
  }, 60_000);
});

describe('SECRETS_KEY at start-up', () => {
  test('an invalid value stops start-up naming the variable, without echoing a key', async () => {
    const key = generateSecretsKey();
    const { code, out } = await operatorCommand(['api'], { DATABASE_URL: t.databaseUrl, SECRETS_KEY: `k2:${key},k2:${key}` });
    expect(code).not.toBe(0);
    expect(out).toContain('Invalid SECRETS_KEY');
    expect(out).not.toContain(key);
  }, 60_000);
});
