import type { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../config.ts';
import { openDatabase, type Orm } from '../db/orm.ts';
import { loadSigningKeys } from '../db/signing-keys.ts';
import type { Logger } from '../logger.ts';
import { LocalEventBus } from '../events/domain-events.ts';
import { AuthService } from '../modules/auth/auth.service.ts';
import { ParticipantService } from '../modules/participants/participant.service.ts';
import { RoomService } from '../modules/rooms/room.service.ts';
import { TenantService } from '../modules/tenants/tenant.service.ts';
import { SecretBox } from '../security/secret-box.ts';
import { TokenService } from '../security/tokens.ts';
import { createS3Client } from '../storage/s3-client.ts';
import { readinessChecks } from './readiness.ts';
import type { AppDeps } from '../app.ts';

export interface Services extends AppDeps {
  s3: S3Client;
  events: LocalEventBus;
  close(): Promise<void>;
}

/** Builds every long-lived service from the config: the one place where the object graph is wired. */
export async function createServices(config: Config, logger: Logger, databaseUrl: string): Promise<Services> {
  const orm: Orm = await openDatabase(databaseUrl, logger);
  const secretBox = new SecretBox(config.secretsKey);
  const keys = await loadSigningKeys(orm.em.fork(), secretBox);
  const tokens = new TokenService({ keys, issuer: config.tokens.issuer, audience: config.tokens.audience });
  const tenants = new TenantService({ secretBox, production: config.nodeEnv === 'production' });
  const auth = new AuthService(tokens, config.tokens);
  const s3 = createS3Client(config.s3);
  const events = new LocalEventBus();
  const rooms = new RoomService({ tenants, events });
  const participants = new ParticipantService({ tenants, rooms, auth, events });
  return {
    config,
    logger,
    orm,
    tokens,
    tenants,
    auth,
    rooms,
    participants,
    events,
    s3,
    readiness: readinessChecks({ config, orm, s3 }),
    async close() {
      s3.destroy();
      await orm.close();
    },
  };
}
