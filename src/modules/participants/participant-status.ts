import type { EntityManager } from '@mikro-orm/postgresql';
import type { TokenClaims } from '../../security/tokens.ts';
import { ParticipantSchema, type Participant } from './participant.entity.ts';

/**
 * The participant a token names, if it is still in its room. Removal takes effect on the next request: every
 * participant credential is checked here (API auth tokens, refresh, and the WebSocket at connect).
 */
export async function currentParticipant(em: EntityManager, claims: Pick<TokenClaims, 'participant_id' | 'room_id' | 'tenant_id'>): Promise<Participant | null> {
  if (!claims.participant_id || !claims.room_id) return null;
  return em.findOne(ParticipantSchema, { id: claims.participant_id, room: claims.room_id, tenant: claims.tenant_id, removedAt: null });
}

/** The same check as currentParticipant when only the answer matters (API auth tokens): one row, no entity. */
export async function isCurrentParticipant(em: EntityManager, claims: Pick<TokenClaims, 'participant_id' | 'room_id' | 'tenant_id'>): Promise<boolean> {
  if (!claims.participant_id || !claims.room_id) return false;
  const rows: unknown[] = await em
    .getConnection()
    .execute('select 1 from participants where id = ? and room_id = ? and tenant_id = ? and removed_at is null', [claims.participant_id, claims.room_id, claims.tenant_id]);
  return rows.length > 0;
}
