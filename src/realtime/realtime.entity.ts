import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { ParticipantSchema } from '../modules/participants/participant.entity.ts';
import { RoomSchema } from '../modules/rooms/room.entity.ts';
import { TenantSchema } from '../modules/tenants/tenant.entity.ts';

// The real-time channel's tables. The gateway reads and writes them with plain SQL on its hot path (src/realtime/);
// these definitions exist so migrations and scripts/schema-diff.ts know them.

/** One open WebSocket. A participant is present while it has a row whose heartbeat is recent (any API instance). */
export const RealtimeConnectionSchema = defineEntity({
  name: 'RealtimeConnection',
  tableName: 'realtime_connections',
  indexes: [
    { name: 'realtime_connections_room_index', properties: ['room', 'participant'] },
    { name: 'realtime_connections_instance_index', properties: ['instanceId'] },
    { name: 'realtime_connections_heartbeat_index', properties: ['heartbeatAt'] },
  ],
  properties: {
    id: p.uuid().primary(),
    tenant: () => p.manyToOne(TenantSchema).deleteRule('cascade'),
    room: () => p.manyToOne(RoomSchema).deleteRule('cascade'),
    participant: () => p.manyToOne(ParticipantSchema).deleteRule('cascade'),
    /** The API process holding the socket; its heartbeat keeps the row alive, a crashed instance's rows go stale. */
    instanceId: p.uuid(),
    connectedAt: p.datetime(),
    heartbeatAt: p.datetime(),
  },
});

/** A raised hand; the row goes when the hand is lowered or its owner leaves. */
export const RaisedHandSchema = defineEntity({
  name: 'RaisedHand',
  tableName: 'raised_hands',
  indexes: [{ name: 'raised_hands_room_index', properties: ['room', 'raisedAt'] }],
  properties: {
    participant: () => p.manyToOne(ParticipantSchema).primary().deleteRule('cascade'),
    room: () => p.manyToOne(RoomSchema).deleteRule('cascade'),
    raisedAt: p.datetime(),
  },
});

/** Chat is stored (docs/decisions.md §11). */
export const ChatMessageSchema = defineEntity({
  name: 'ChatMessage',
  tableName: 'chat_messages',
  indexes: [
    { name: 'chat_messages_room_index', properties: ['room', 'createdAt'] },
    { name: 'chat_messages_tenant_index', properties: ['tenant'] },
  ],
  properties: {
    id: p.uuid().primary(),
    tenant: () => p.manyToOne(TenantSchema).deleteRule('cascade'),
    room: () => p.manyToOne(RoomSchema).deleteRule('cascade'),
    sender: () => p.manyToOne(ParticipantSchema).deleteRule('cascade'),
    text: p.text(),
    createdAt: p.datetime(),
  },
});

/**
 * Each room's event counter. Every batch of room events bumps it inside the transaction that produces the events, so
 * the row lock orders a room's events and each batch carries its number (a new socket skips what its snapshot holds).
 * The same row numbers the room's events one by one (`eventSeq`, the `seq` clients see and resume from,
 * docs/decisions.md §11): a batch may hold several events, or none.
 * No foreign key: the counter must outlive a deleted room long enough to announce the deletion.
 */
export const RoomEventSequenceSchema = defineEntity({
  name: 'RoomEventSequence',
  tableName: 'room_event_sequences',
  properties: {
    roomId: p.uuid().primary(),
    seq: p.bigint('number'),
    eventSeq: p.bigint('number').default(0),
  },
});

/**
 * A room's recent events as sent (the JSON text, `seq` included), so a client that reconnects gets what it missed
 * (docs/decisions.md §11). Written in the transaction that numbers them; kept WS_RESUME_WINDOW, at most the last 1,000
 * of a room. No foreign key, as the counter: a deleted room's are deleted with its counter.
 */
export const RoomEventSchema = defineEntity({
  name: 'RoomEvent',
  tableName: 'room_events',
  indexes: [{ name: 'room_events_created_at_index', properties: ['createdAt'] }],
  properties: {
    roomId: p.uuid().primary(),
    seq: p.bigint('number').primary(),
    message: p.text(),
    createdAt: p.datetime(),
  },
});

export type RealtimeConnection = InferEntity<typeof RealtimeConnectionSchema>;
export type ChatMessage = InferEntity<typeof ChatMessageSchema>;
