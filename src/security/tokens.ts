import { createPrivateKey, createPublicKey, randomUUID, type JsonWebKey, type KeyObject } from 'node:crypto';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, jwtVerify, type JWK, type JWTPayload } from 'jose';

/** Longest token verify() will parse; anything longer is refused before any decoding. */
export const MAX_TOKEN_LENGTH = 4096;

const ALG = 'EdDSA';
const TOKEN_TYPES = ['access', 'auth', 'refresh'] as const;
const ROLES = ['host', 'participant', 'viewer'] as const;

export type TokenType = (typeof TOKEN_TYPES)[number];
export type ParticipantRole = (typeof ROLES)[number];

/** Every claim a Convene token can carry (docs/decisions.md §4). */
export interface TokenClaims {
  iss: string;
  aud: string;
  /** Tenant tokens: the tenant id; participant tokens: the participant id. */
  sub: string;
  iat: number;
  exp: number;
  /** UUID; the handle for revocation and refresh-token reuse detection. */
  jti: string;
  typ: TokenType;
  tenant_id: string;
  /** Participant tokens carry room_id, participant_id and role together, or none of them. */
  room_id?: string;
  participant_id?: string;
  role?: ParticipantRole;
  /** Refresh tokens only: the family id shared by every refresh token descended from one login. */
  fam?: string;
  /** Tenant tokens: id of the API key they were issued from, so rotating the key retires them. */
  key_id?: string;
}

/** What the caller chooses; iss, aud, iat and exp are set by the signer, jti is a fresh UUID unless given. */
export type TokenClaimsInput = Pick<TokenClaims, 'sub' | 'typ' | 'tenant_id'> &
  Partial<Pick<TokenClaims, 'room_id' | 'participant_id' | 'role' | 'fam' | 'key_id' | 'jti'>>;

/** An Ed25519 key as JWKs. Retired keys may drop privateJwk: they still verify but never sign. */
export interface SigningKey {
  kid: string;
  privateJwk?: JWK;
  publicJwk: JWK;
}

export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

export interface TokenServiceOptions {
  /** Newest first: keys[0] signs (it needs privateJwk); every key verifies, so keys can rotate. */
  keys: readonly SigningKey[];
  issuer: string;
  audience: string;
  /** Milliseconds since the epoch; tests move time with it. */
  now?: () => number;
}

/** The token is well formed and correctly signed but past its `exp`. */
export class TokenExpiredError extends Error {
  override name = 'TokenExpiredError';
}

/** Anything else wrong with a token: malformed, oversize, bad signature, wrong alg/kid/iss/aud/typ, missing claims. */
export class InvalidTokenError extends Error {
  override name = 'InvalidTokenError';
}

export async function generateSigningKey(): Promise<{ kid: string; privateJwk: JWK; publicJwk: JWK }> {
  const { privateKey } = await generateKeyPair(ALG, { crv: 'Ed25519', extractable: true });
  const { kty, crv, x, d } = await exportJWK(privateKey);
  const publicJwk: JWK = { kty, crv, x };
  // RFC 7638 thumbprint: a kid derived from the key itself, so two keys can never share one by accident.
  const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
  return { kid, privateJwk: { kty, crv, x, d }, publicJwk };
}

/** Issues and verifies Convene's JWTs (EdDSA / Ed25519, `kid` in the header, algorithm pinned on verify). */
export class TokenService {
  readonly issuer: string;
  readonly audience: string;
  private readonly now: () => number;
  private signingKid!: string;
  private signingKey!: KeyObject;
  private verifyKeys = new Map<string, KeyObject>();
  private publicJwks: PublicJwk[] = [];

  constructor(options: TokenServiceOptions) {
    if (!options.issuer || !options.audience) throw new Error('TokenService needs an issuer and an audience');
    this.issuer = options.issuer;
    this.audience = options.audience;
    this.now = options.now ?? Date.now;
    this.useKeys(options.keys);
  }

  /**
   * Replaces the key set (a rotation, src/db/signing-keys.ts): keys[0] signs from now on, every key verifies. Built
   * aside and swapped at once, so a request never sees half a set.
   */
  useKeys(keys: readonly SigningKey[]): void {
    if (keys.length === 0) throw new Error('TokenService needs at least one signing key');
    const verifyKeys = new Map<string, KeyObject>();
    const publicJwks: PublicJwk[] = [];
    for (const key of keys) {
      if (!key.kid) throw new Error('every signing key needs a kid');
      if (verifyKeys.has(key.kid)) throw new Error(`duplicate signing key id "${key.kid}"`);
      const { kty, crv, x } = key.publicJwk;
      if (kty !== 'OKP' || crv !== 'Ed25519' || typeof x !== 'string') {
        throw new Error(`signing key "${key.kid}" is not an Ed25519 public JWK`);
      }
      if (key.privateJwk && key.privateJwk.x !== x) {
        throw new Error(`signing key "${key.kid}": private and public JWK do not belong together`);
      }
      verifyKeys.set(key.kid, createPublicKey({ key: { kty, crv, x } as JsonWebKey, format: 'jwk' }));
      publicJwks.push({ kty: 'OKP', crv: 'Ed25519', x, kid: key.kid, alg: ALG, use: 'sig' });
    }

    const newest = keys[0];
    if (!newest.privateJwk?.d) throw new Error(`the newest signing key "${newest.kid}" has no private JWK`);
    const signingKey = createPrivateKey({ key: newest.privateJwk as JsonWebKey, format: 'jwk' });
    this.verifyKeys = verifyKeys;
    this.publicJwks = publicJwks;
    this.signingKid = newest.kid;
    this.signingKey = signingKey;
  }

  /** Signs a token and returns it with the full claim set (the caller stores jti / fam / exp as needed). */
  async issue(input: TokenClaimsInput, ttlSeconds: number): Promise<{ token: string; claims: TokenClaims }> {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) throw new RangeError('ttlSeconds must be a positive integer');
    const iat = Math.floor(this.now() / 1000);
    let claims: TokenClaims;
    try {
      claims = checkClaims(
        { ...input, iss: this.issuer, aud: this.audience, iat, exp: iat + ttlSeconds, jti: input.jti ?? randomUUID() },
        [input.typ],
      );
    } catch (err) {
      // A bad claim set here is a bug in the caller, not a bad token from a client.
      throw new TypeError((err as Error).message);
    }
    const token = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: ALG, kid: this.signingKid, typ: 'JWT' })
      .sign(this.signingKey);
    return { token, claims };
  }

  async sign(input: TokenClaimsInput, ttlSeconds: number): Promise<string> {
    return (await this.issue(input, ttlSeconds)).token;
  }

  /**
   * Verifies signature (EdDSA only, key chosen by kid), iss, aud, exp and `typ`; returns the claims.
   * Throws TokenExpiredError for an expired but otherwise valid token, InvalidTokenError for everything else.
   */
  async verify(token: string, expectedTyp: TokenType | readonly TokenType[]): Promise<TokenClaims> {
    const expected: readonly TokenType[] = typeof expectedTyp === 'string' ? [expectedTyp] : expectedTyp;
    if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
      throw new InvalidTokenError('token is missing or longer than allowed');
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, (header) => this.keyFor(header.kid), {
        algorithms: [ALG],
        issuer: this.issuer,
        audience: this.audience,
        typ: 'JWT',
        requiredClaims: ['sub', 'iat', 'exp', 'jti'],
        currentDate: new Date(this.now()),
      }));
    } catch (err) {
      if (err instanceof InvalidTokenError) throw err;
      const code = (err as { code?: unknown }).code;
      if (code === 'ERR_JWT_EXPIRED') {
        // The signature was valid; still say "invalid" when it is the wrong kind of token anyway.
        const claims = (err as { payload?: JWTPayload }).payload;
        if (claims && expected.includes(claims.typ as TokenType)) throw new TokenExpiredError('token has expired');
      }
      throw new InvalidTokenError(`token rejected: ${(err as Error).message}`, { cause: err });
    }
    return checkClaims(payload, expected);
  }

  /** The public half of every key, for GET /.well-known/jwks.json. */
  jwks(): { keys: PublicJwk[] } {
    return { keys: this.publicJwks.map((jwk) => ({ ...jwk })) };
  }

  private keyFor(kid: string | undefined): KeyObject {
    const key = kid === undefined ? undefined : this.verifyKeys.get(kid);
    if (!key) throw new InvalidTokenError('token signed with an unknown key');
    return key;
  }
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** Shape check shared by issue (programming errors surface early) and verify; returns only known claims. */
function checkClaims(payload: JWTPayload | TokenClaims, expected: readonly TokenType[]): TokenClaims {
  const p = payload as Record<string, unknown>;
  const fail = (why: string): never => {
    throw new InvalidTokenError(`token rejected: ${why}`);
  };
  if (!TOKEN_TYPES.includes(p.typ as TokenType) || !expected.includes(p.typ as TokenType)) {
    fail(`typ must be ${expected.join(' or ')}`);
  }
  for (const name of ['iss', 'aud', 'sub', 'jti', 'tenant_id'] as const) {
    if (!isNonEmptyString(p[name])) fail(`claim ${name} missing`);
  }
  if (typeof p.iat !== 'number' || typeof p.exp !== 'number') fail('claims iat and exp must be numbers');

  const participantClaims = [p.room_id, p.participant_id, p.role].filter((v) => v !== undefined).length;
  if (participantClaims !== 0 && participantClaims !== 3) fail('room_id, participant_id and role go together');
  if (participantClaims === 3) {
    if (!isNonEmptyString(p.room_id) || !isNonEmptyString(p.participant_id)) fail('participant claims malformed');
    if (!ROLES.includes(p.role as ParticipantRole)) fail('role unknown');
  }
  if (p.typ === 'refresh' ? !isNonEmptyString(p.fam) : p.fam !== undefined) fail('fam belongs to refresh tokens only');
  if (p.key_id !== undefined && !isNonEmptyString(p.key_id)) fail('key_id malformed');

  const claims: TokenClaims = {
    iss: p.iss as string,
    aud: p.aud as string,
    sub: p.sub as string,
    iat: p.iat as number,
    exp: p.exp as number,
    jti: p.jti as string,
    typ: p.typ as TokenType,
    tenant_id: p.tenant_id as string,
  };
  if (participantClaims === 3) {
    claims.room_id = p.room_id as string;
    claims.participant_id = p.participant_id as string;
    claims.role = p.role as ParticipantRole;
  }
  if (p.fam !== undefined) claims.fam = p.fam as string;
  if (p.key_id !== undefined) claims.key_id = p.key_id as string;
  return claims;
}
