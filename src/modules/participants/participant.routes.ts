import type { EntityManager } from '@mikro-orm/postgresql';
import type { components } from '../../../generated/openapi.ts';
import { handler, type Handlers } from '../../http/handler.ts';
import type { Participant } from './participant.entity.ts';
import type { ParticipantService } from './participant.service.ts';

type AddResponse = components['schemas']['AddParticipantResponse'];
type ListEntry = components['schemas']['ParticipantListEntry'];

const optionalExternalId = (p: Participant) => (p.externalUserId ? { external_user_id: p.externalUserId } : {});

export function participantRoutes(deps: { participants: ParticipantService; em: () => EntityManager }): Handlers {
  const { participants, em } = deps;
  return {
    addParticipant: handler<'addParticipant'>(async ({ params, body }, principal) => {
      const added = await participants.add(em(), principal, params.id, body);
      // docs/decisions.md §5: the config without post_meeting_webhook, which is also where every secret lives.
      const { post_meeting_webhook: _hidden, ...tenantConfig } = added.config;
      const reply: AddResponse = {
        participant: {
          id: added.participant.id,
          room_id: added.room.id,
          display_name: added.participant.displayName,
          ...optionalExternalId(added.participant),
          role: added.participant.role,
        },
        room: { id: added.room.id, name: added.room.name, status: added.room.status },
        room_created: added.roomCreated,
        tenant_config: tenantConfig,
        ...added.tokens,
        should_start_recording: added.shouldStartRecording,
      };
      return { status: 201, body: reply };
    }),
    listParticipants: handler<'listParticipants'>(async ({ params, query }, principal) => {
      // `active` is a boolean with default false in the spec; the validator has coerced and defaulted it.
      const list = await participants.list(em(), principal, params.id, { active: query.active === true });
      const entries: ListEntry[] = list.map((p) => ({
        id: p.id,
        display_name: p.displayName,
        ...optionalExternalId(p),
        role: p.role,
        joined_at: p.joinedAt.toISOString(),
      }));
      return { status: 200, body: { participants: entries } };
    }),
    removeParticipant: handler<'removeParticipant'>(async ({ params }, principal) => {
      await participants.remove(em(), principal, params.id, params.pid);
      return { status: 204 };
    }),
    issueParticipantToken: handler<'issueParticipantToken'>(async ({ params }, principal) => ({
      status: 200,
      body: await participants.reissueTokens(em(), principal, params.id, params.pid),
    })),
    bulkAddParticipants: handler<'bulkAddParticipants'>(async ({ params, body }, principal) => ({
      status: 200,
      body: { results: await participants.bulkAdd(em(), principal, params.id, body.participants) },
    })),
  };
}
