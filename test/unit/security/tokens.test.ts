import { createPublicKey, randomUUID } from 'node:crypto';
import { SignJWT, base64url, createLocalJWKSet, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import {
  InvalidTokenError,
  MAX_TOKEN_LENGTH,
  TokenExpiredError,
  TokenService,
  generateSigningKey,
  type SigningKey,
  type TokenClaimsInput,
} from '../../../src/security/tokens.ts';

const issuer = 'http://127.0.0.1:3000';
const audience = 'convene';
const tenantId = randomUUID();

let key: SigningKey & { privateJwk: NonNullable<SigningKey['privateJwk']> };
let tokens: TokenService;

const keyId = randomUUID();
const tenantAccess: TokenClaimsInput = { sub: tenantId, typ: 'access', tenant_id: tenantId, key_id: keyId };

beforeAll(async () => {
  key = await generateSigningKey();
  tokens = new TokenService({ keys: [key], issuer, audience });
});

/** Signs arbitrary header/claims with the real private key, for tokens the service itself would never issue. */
async function forge(claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: issuer,
    aud: audience,
    sub: tenantId,
    iat: now,
    exp: now + 60,
    jti: randomUUID(),
    typ: 'access',
    tenant_id: tenantId,
    ...claims,
  })
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'JWT', ...header })
    .sign(await importJWK(key.privateJwk, 'EdDSA'));
}

describe('generateSigningKey', () => {
  test('makes an Ed25519 pair whose kid is the RFC 7638 thumbprint', async () => {
    expect(key.publicJwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: expect.any(String) });
    expect(key.privateJwk.d).toEqual(expect.any(String));
    expect(key.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const other = await generateSigningKey();
    expect(other.kid).not.toBe(key.kid);
  });
});

describe('TokenService', () => {
  test('round trip: header and claims as documented', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { token, claims } = await tokens.issue(tenantAccess, 900);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' });
    expect(claims).toEqual({
      iss: issuer,
      aud: audience,
      sub: tenantId,
      iat: expect.any(Number),
      exp: claims.iat + 900,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      typ: 'access',
      tenant_id: tenantId,
      key_id: keyId,
    });
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    await expect(tokens.verify(token, 'access')).resolves.toEqual(claims);
  });

  test('participant and refresh claims survive the round trip', async () => {
    const participant = {
      sub: randomUUID(),
      tenant_id: tenantId,
      room_id: randomUUID(),
      participant_id: randomUUID(),
      role: 'host' as const,
    };
    const auth = await tokens.sign({ ...participant, typ: 'auth' }, 3600);
    expect(await tokens.verify(auth, ['access', 'auth'])).toMatchObject({ ...participant, typ: 'auth' });
    const fam = randomUUID();
    const jti = randomUUID();
    const refresh = await tokens.sign({ ...participant, typ: 'refresh', fam, jti }, 86400);
    expect(await tokens.verify(refresh, 'refresh')).toMatchObject({ ...participant, typ: 'refresh', fam, jti });
  });

  test('verifies with standard tooling against the published JWKS', async () => {
    const jwks = tokens.jwks();
    expect(jwks).toEqual({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: key.publicJwk.x, kid: key.kid, alg: 'EdDSA', use: 'sig' }] });
    expect(JSON.stringify(jwks)).not.toContain(key.privateJwk.d);
    const token = await tokens.sign(tenantAccess, 60);
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer, audience });
    expect(payload.tenant_id).toBe(tenantId);
  });

  test('refuses the wrong typ', async () => {
    const refresh = await tokens.sign({ ...tenantAccess, typ: 'refresh', fam: randomUUID() }, 60);
    await expect(tokens.verify(refresh, 'access')).rejects.toThrow(InvalidTokenError);
    const access = await tokens.sign(tenantAccess, 60);
    await expect(tokens.verify(access, 'refresh')).rejects.toThrow(InvalidTokenError);
    await expect(tokens.verify(access, ['auth', 'refresh'])).rejects.toThrow(InvalidTokenError);
  });

  test('refuses another issuer or audience', async () => {
    const token = await tokens.sign(tenantAccess, 60);
    await expect(new TokenService({ keys: [key], issuer: 'https://elsewhere', audience }).verify(token, 'access')).rejects.toThrow(InvalidTokenError);
    await expect(new TokenService({ keys: [key], issuer, audience: 'other' }).verify(token, 'access')).rejects.toThrow(InvalidTokenError);
    await expect(tokens.verify(await forge({ iss: 'https://elsewhere' }), 'access')).rejects.toThrow(InvalidTokenError);
    await expect(tokens.verify(await forge({ aud: 'other' }), 'access')).rejects.toThrow(InvalidTokenError);
  });

  test('an expired token gives TokenExpiredError, unless it is the wrong kind anyway', async () => {
    const tenMinutesAgo = Date.now() - 600_000;
    const past = new TokenService({ keys: [key], issuer, audience, now: () => tenMinutesAgo });
    const expired = await past.sign(tenantAccess, 60);
    await expect(tokens.verify(expired, 'access')).rejects.toThrow(TokenExpiredError);
    await expect(tokens.verify(expired, 'refresh')).rejects.toThrow(InvalidTokenError);
    // Valid at its own time: the clock is what expired it.
    await expect(past.verify(expired, 'access')).resolves.toMatchObject({ tenant_id: tenantId });
  });

  test('an expired token with a bad signature is invalid, not expired', async () => {
    const past = new TokenService({ keys: [await generateSigningKey()], issuer, audience, now: () => Date.now() - 600_000 });
    const foreign = await past.sign(tenantAccess, 60);
    const [h, p, s] = foreign.split('.');
    const relabelled = `${base64url.encode(JSON.stringify({ ...JSON.parse(Buffer.from(h, 'base64url').toString()), kid: key.kid }))}.${p}.${s}`;
    await expect(tokens.verify(relabelled, 'access')).rejects.toThrow(InvalidTokenError);
  });

  test('refuses an HS256 token, even one keyed with the public key (algorithm confusion)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: issuer, aud: audience, sub: tenantId, iat: now, exp: now + 60, jti: randomUUID(), typ: 'access', tenant_id: tenantId };
    const publicKeyBytes = createPublicKey({ key: key.publicJwk as never, format: 'jwk' }).export({ type: 'spki', format: 'der' });
    for (const secret of [new TextEncoder().encode('some-shared-secret'), new Uint8Array(publicKeyBytes), base64url.decode(key.publicJwk.x!)]) {
      const hs256 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'JWT' }).sign(secret);
      await expect(tokens.verify(hs256, 'access')).rejects.toThrow(InvalidTokenError);
    }
  });

  test('refuses alg none', async () => {
    const now = Math.floor(Date.now() / 1000);
    const header = base64url.encode(JSON.stringify({ alg: 'none', kid: key.kid, typ: 'JWT' }));
    const body = base64url.encode(JSON.stringify({ iss: issuer, aud: audience, sub: tenantId, iat: now, exp: now + 60, jti: randomUUID(), typ: 'access', tenant_id: tenantId }));
    await expect(tokens.verify(`${header}.${body}.`, 'access')).rejects.toThrow(InvalidTokenError);
  });

  test('refuses an unknown kid or a missing kid', async () => {
    await expect(tokens.verify(await forge({}, { kid: 'not-a-key' }), 'access')).rejects.toThrow(InvalidTokenError);
    await expect(tokens.verify(await forge({}, { kid: undefined }), 'access')).rejects.toThrow(InvalidTokenError);
  });

  test('refuses a tampered payload or signature', async () => {
    const token = await tokens.sign(tenantAccess, 60);
    const [h, p, s] = token.split('.');
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const otherTenant = base64url.encode(JSON.stringify({ ...payload, tenant_id: randomUUID() }));
    await expect(tokens.verify(`${h}.${otherTenant}.${s}`, 'access')).rejects.toThrow(InvalidTokenError);
    const sig = Buffer.from(s, 'base64url');
    sig[0] ^= 1;
    await expect(tokens.verify(`${h}.${p}.${sig.toString('base64url')}`, 'access')).rejects.toThrow(InvalidTokenError);
  });

  test('refuses tokens with missing or inconsistent claims', async () => {
    for (const claims of [
      { tenant_id: undefined },
      { jti: undefined },
      { exp: undefined },
      { typ: 'admin' },
      { room_id: randomUUID() },
      { room_id: randomUUID(), participant_id: randomUUID(), role: 'owner' },
      { fam: randomUUID() },
      { key_id: '' },
      { key_id: 42 },
    ]) {
      await expect(tokens.verify(await forge(claims), 'access')).rejects.toThrow(InvalidTokenError);
    }
    await expect(tokens.verify(await forge({ typ: 'refresh' }), 'refresh')).rejects.toThrow(InvalidTokenError);
    await expect(tokens.verify(await forge({ typ: 'access' }, { typ: 'at+jwt' }), 'access')).rejects.toThrow(InvalidTokenError);
  });

  test('refuses garbage and tokens over the size limit before parsing', async () => {
    for (const bad of ['', 'abc', 'a.b.c', '...', `${'A'.repeat(MAX_TOKEN_LENGTH + 1)}`]) {
      await expect(tokens.verify(bad, 'access')).rejects.toThrow(InvalidTokenError);
    }
    const big = await forge({ padding: 'x'.repeat(MAX_TOKEN_LENGTH) });
    expect(big.length).toBeGreaterThan(MAX_TOKEN_LENGTH);
    await expect(tokens.verify(big, 'access')).rejects.toThrow(/longer than allowed/);
  });

  test('key rotation: the newest key signs, older keys still verify, removed keys do not', async () => {
    const newer = await generateSigningKey();
    const oldToken = await tokens.sign(tenantAccess, 60);
    const rotated = new TokenService({ keys: [newer, { kid: key.kid, publicJwk: key.publicJwk }], issuer, audience });
    const newToken = await rotated.sign(tenantAccess, 60);
    expect(decodeProtectedHeader(newToken).kid).toBe(newer.kid);
    await expect(rotated.verify(oldToken, 'access')).resolves.toMatchObject({ tenant_id: tenantId });
    await expect(rotated.verify(newToken, 'access')).resolves.toMatchObject({ tenant_id: tenantId });
    expect(rotated.jwks().keys.map((k) => k.kid)).toEqual([newer.kid, key.kid]);
    await expect(tokens.verify(newToken, 'access')).rejects.toThrow(InvalidTokenError);
    await expect(new TokenService({ keys: [newer], issuer, audience }).verify(oldToken, 'access')).rejects.toThrow(InvalidTokenError);
  });

  test('refuses a bad key set or a bad claim set at the caller, not at the client', async () => {
    const other = await generateSigningKey();
    expect(() => new TokenService({ keys: [], issuer, audience })).toThrow();
    expect(() => new TokenService({ keys: [{ kid: key.kid, publicJwk: key.publicJwk }], issuer, audience })).toThrow(/private/);
    expect(() => new TokenService({ keys: [key, key], issuer, audience })).toThrow(/duplicate/);
    expect(() => new TokenService({ keys: [{ ...key, publicJwk: other.publicJwk }], issuer, audience })).toThrow(/belong/);
    await expect(tokens.sign(tenantAccess, 0)).rejects.toThrow(RangeError);
    await expect(tokens.sign({ ...tenantAccess, typ: 'refresh' }, 60)).rejects.toThrow(TypeError);
    await expect(tokens.sign({ ...tenantAccess, room_id: randomUUID() }, 60)).rejects.toThrow(TypeError);
  });
});
