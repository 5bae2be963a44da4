// Who is calling, as resolved by the authenticate middleware from one of the three credentials (docs/decisions.md §4).
import { forbidden } from './errors.ts';

export type ParticipantRole = 'host' | 'participant' | 'viewer';

export type Principal =
  | { kind: 'admin' }
  | { kind: 'tenant'; tenantId: string; via: 'api_key' | 'access_token' }
  | { kind: 'participant'; tenantId: string; roomId: string; participantId: string; role: ParticipantRole };

/** The tenant a principal acts for; admins manage tenants, not rooms. Every tenant-scoped service starts here. */
export function tenantOf(principal: Principal): string {
  if (principal.kind === 'admin') throw forbidden('The admin key manages tenants; use a tenant API key for rooms');
  return principal.tenantId;
}
