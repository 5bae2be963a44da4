import type { ChatMessageData } from '../../generated/asyncapi.ts';
import type { Sql } from '../db/sql.ts';
import { chatData } from './pg-bus.ts';

// Chat messages are stored (docs/decisions.md §11) in the room's transaction that announces them, once that transaction
// found the sender still in the room (presence.standing).

/** Stores one sender's messages in one statement; returns them in the order given, timestamped. */
export async function storeChats(
  sql: Sql,
  sender: { tenantId: string; roomId: string; participantId: string },
  messages: Array<{ id: string; text: string }>,
): Promise<ChatMessageData[]> {
  const { rows } = await sql.query(
    `insert into chat_messages (id, tenant_id, room_id, sender_id, text, created_at)
     select m.id, $2, $3, $4, m.text, clock_timestamp() from unnest($1::uuid[], $5::text[]) as m (id, text)
     returning id, sender_id, text, created_at`,
    [messages.map((m) => m.id), sender.tenantId, sender.roomId, sender.participantId, messages.map((m) => m.text)],
  );
  const byId = new Map(rows.map((row) => [row.id as string, row]));
  return messages.map((m) => chatData(byId.get(m.id)));
}
