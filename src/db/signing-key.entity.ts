import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

// JWT signing keys live in the database (private half sealed with SECRETS_KEY) so every API instance signs and
// verifies with the same set, and tokens survive restarts.
export const SigningKeySchema = defineEntity({
  name: 'SigningKey',
  tableName: 'signing_keys',
  properties: {
    kid: p.string().length(64).primary(),
    privateJwkSealed: p.text(),
    publicJwk: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type SigningKey = InferEntity<typeof SigningKeySchema>;
