// Who was in the room during a recording, for the analyser (docs/decisions.md §9): the participants' display names
// help it recognise names the recogniser spelled otherwise ("Lara" for Zara) and, with exactly two people in the
// room, tell who speaks. Not the recogniser's labels, and never an owner the meeting does not name.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ParticipantSchema } from '../participants/participant.entity.ts';
import type { Recording } from '../recordings/recording.entity.ts';

/**
 * More names than this say nothing about who speaks (a lecture's audience), and each one costs the analyser a
 * comparison per name it hears and the LLM prompt a line: past it, none are passed.
 */
export const MAX_MEETING_PARTICIPANTS = 50;

/**
 * The distinct display names of the participants who were in the recording's room while it recorded: joined before it
 * stopped and not removed before it started. Undefined when there are none or too many to help.
 */
export async function meetingParticipants(em: EntityManager, recording: Recording): Promise<string[] | undefined> {
  const rows = await em.find(
    ParticipantSchema,
    {
      tenant: recording.tenant.id,
      room: recording.room.id,
      ...(recording.stoppedAt ? { joinedAt: { $lte: recording.stoppedAt } } : {}),
      ...(recording.startedAt ? { $or: [{ removedAt: null }, { removedAt: { $gte: recording.startedAt } }] } : {}),
    },
    { fields: ['displayName'], orderBy: { joinedAt: 'asc' }, limit: MAX_MEETING_PARTICIPANTS * 4 },
  );
  if (rows.length === MAX_MEETING_PARTICIPANTS * 4) return undefined;
  const names = [...new Set(rows.map((row) => row.displayName.trim()).filter(Boolean))];
  return names.length === 0 || names.length > MAX_MEETING_PARTICIPANTS ? undefined : names;
}
