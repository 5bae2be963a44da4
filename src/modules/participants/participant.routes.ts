import type { EntityManager } from '@mikro-orm/postgresql';
import type { components } from '../../../generated/openapi.ts';
import type { OperationHandlers } from '../../http/router.ts';
import type { Participant } from './participant.entity.ts';
import type { ParticipantService } from './participant.service.ts';

type AddResponse = components['schemas']['AddParticipantResponse'];
type ListEntry = components['schemas']['ParticipantListEntry'];

const optionalExternalId = (p: Participant) => (p.externalUserId ? { external_user_id: p.externalUserId } : {});

export function participantRoutes(deps: { participants: ParticipantService; em: () => EntityManager }): OperationHandlers {
  const { participants, em } = deps;
  return {
    addParticipant: async (req, res) => {
      const added = await participants.add(em(), req.principal!, req.params.id as string, req.body);
      // DECISIONS §5: the config without post_meeting_webhook, which is also where every secret lives.
      const { post_meeting_webhook: _hidden, ...tenantConfig } = added.config;
      const body: AddResponse = {
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
      res.status(201).json(body);
    },
    listParticipants: async (req, res) => {
      const list = await participants.list(em(), req.principal!, req.params.id as string, { active: req.query.active === 'true' || (req.query.active as unknown) === true });
      const entries: ListEntry[] = list.map((p) => ({
        id: p.id,
        display_name: p.displayName,
        ...optionalExternalId(p),
        role: p.role,
        joined_at: p.joinedAt.toISOString(),
      }));
      res.json({ participants: entries });
    },
    removeParticipant: async (req, res) => {
      await participants.remove(em(), req.principal!, req.params.id as string, req.params.pid as string);
      res.status(204).end();
    },
    issueParticipantToken: async (req, res) => {
      res.json(await participants.reissueTokens(em(), req.principal!, req.params.id as string, req.params.pid as string));
    },
    bulkAddParticipants: async (req, res) => {
      res.json({ results: await participants.bulkAdd(em(), req.principal!, req.params.id as string, req.body.participants) });
    },
  };
}
