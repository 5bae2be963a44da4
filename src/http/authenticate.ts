import type { RequestHandler } from 'express';
import type { ParticipantRole, Principal } from '../domain/principal.ts';

/** What spec/openapi.yaml says an operation accepts: its security schemes and, for participants, the roles. */
export interface OperationAccess {
  schemes: Set<string>;
  participantRoles: Set<ParticipantRole>;
}

/** The credentials an HTTP request presented, read off its headers here. */
export interface PresentedCredentials {
  adminKey?: string;
  apiKey?: string;
  bearer?: string;
}

/**
 * What the HTTP layer needs to know who is calling: the port the credential resolver
 * (src/credentials/credential-resolver.ts, an adapter on a floor above) implements and src/app.ts hands in, so this
 * layer never imports it (docs/architecture.md habit 16).
 */
export interface OperationCredentials {
  forOperation(presented: PresentedCredentials, access: OperationAccess): Promise<Principal>;
}

/**
 * Reads the credentials off the headers and sets `req.principal` for the operation's declared schemes. What a
 * credential means is decided by the resolver, not here.
 */
export function createAuthenticator(credentials: OperationCredentials) {
  return (access: OperationAccess): RequestHandler =>
    async (req, _res, next) => {
      // The provider's webhook has no principal: its signature was checked on the raw body (upstream-signature.ts).
      if (access.schemes.size === 1 && access.schemes.has('UpstreamSignature')) return next();
      const bearer = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
      req.principal = await credentials.forOperation({ adminKey: req.get('x-admin-key'), apiKey: req.get('x-api-key'), bearer }, access);
      next();
    };
}
