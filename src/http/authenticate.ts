import type { RequestHandler } from 'express';
import type { CredentialResolver, OperationAccess } from '../auth/credentials.ts';

/**
 * The HTTP adapter of the credential resolver (src/auth/credentials.ts): reads the credentials off the headers and
 * sets `req.principal` for the operation's declared schemes. What a credential means is decided there, not here.
 */
export function createAuthenticator(credentials: CredentialResolver) {
  return (access: OperationAccess): RequestHandler =>
    async (req, _res, next) => {
      // The provider's webhook has no principal: its signature was checked on the raw body (upstream-signature.ts).
      if (access.schemes.size === 1 && access.schemes.has('UpstreamSignature')) return next();
      const bearer = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
      req.principal = await credentials.forOperation({ adminKey: req.get('x-admin-key'), apiKey: req.get('x-api-key'), bearer }, access);
      next();
    };
}
