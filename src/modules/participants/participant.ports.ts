// What the participants module needs from outside it, as the module states it. The auth module implements it
// (AuthService), so participants never import auth: auth issues credentials for participants, not the reverse
// (docs/architecture.md habit 16).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ParticipantRole } from '../../domain/principal.ts';
import type { ParticipantTokenSet, SignedParticipantTokens } from '../../security/token-sets.ts';
import type { Tenant } from '../tenants/tenant.entity.ts';
import type { Participant } from './participant.entity.ts';

/** A participant's credentials: issued when it joins, re-issued on demand, revoked when it leaves. */
export interface ParticipantCredentials {
  /**
   * A participant's set, signed but not yet stored: the caller stores `refreshRow` in the transaction that adds the
   * participant (docs/decisions.md §15: the participant and its tokens commit together).
   */
  signParticipantTokens(tenantId: string, participant: { id: string; roomId: string; role: ParticipantRole }, familyId?: string): Promise<SignedParticipantTokens>;
  /** Signs and stores a new set for an existing participant. */
  issueParticipantTokens(em: EntityManager, tenant: Tenant, participant: Participant, familyId?: string): Promise<ParticipantTokenSet>;
  /** Retires every refresh token of the participant. */
  revokeParticipant(em: EntityManager, participantId: string): Promise<void>;
}
