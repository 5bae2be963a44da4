import { SignJWT, generateKeyPair } from 'jose';
import { MikroORM } from '@mikro-orm/postgresql';

test('ESM-only dependencies load under jest', async () => {
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const jwt = await new SignJWT({}).setProtectedHeader({ alg: 'EdDSA' }).sign(privateKey);
  expect(jwt.split('.')).toHaveLength(3);
  expect(typeof MikroORM.init).toBe('function');
});
