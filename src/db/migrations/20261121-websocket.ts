import { Migration } from '@mikro-orm/migrations';

// The real-time channel: open sockets (presence across API instances), raised hands, stored chat and each room's
// event counter (the order of a room's events, see src/realtime/pg-bus.ts).
export class Migration20261121Websocket extends Migration {
  override up(): void {
    this.addSql(`create table "room_event_sequences" ("room_id" uuid not null, "seq" bigint not null, primary key ("room_id"));`);
    this.addSql(`create table "realtime_connections" ("id" uuid not null, "tenant_id" uuid not null, "room_id" uuid not null, "participant_id" uuid not null, "instance_id" uuid not null, "connected_at" timestamptz not null, "heartbeat_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "realtime_connections_room_index" on "realtime_connections" ("room_id", "participant_id");`);
    this.addSql(`create index "realtime_connections_instance_index" on "realtime_connections" ("instance_id");`);
    this.addSql(`create index "realtime_connections_heartbeat_index" on "realtime_connections" ("heartbeat_at");`);
    this.addSql(`create table "raised_hands" ("participant_id" uuid not null, "room_id" uuid not null, "raised_at" timestamptz not null, primary key ("participant_id"));`);
    this.addSql(`create index "raised_hands_room_index" on "raised_hands" ("room_id", "raised_at");`);
    this.addSql(`create table "chat_messages" ("id" uuid not null, "tenant_id" uuid not null, "room_id" uuid not null, "sender_id" uuid not null, "text" text not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "chat_messages_room_index" on "chat_messages" ("room_id", "created_at");`);
    this.addSql(`create index "chat_messages_tenant_index" on "chat_messages" ("tenant_id");`);
    this.addSql(`alter table "realtime_connections" add constraint "realtime_connections_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id") on delete cascade;`);
    this.addSql(`alter table "realtime_connections" add constraint "realtime_connections_room_id_foreign" foreign key ("room_id") references "rooms" ("id") on delete cascade;`);
    this.addSql(`alter table "realtime_connections" add constraint "realtime_connections_participant_id_foreign" foreign key ("participant_id") references "participants" ("id") on delete cascade;`);
    this.addSql(`alter table "raised_hands" add constraint "raised_hands_participant_id_foreign" foreign key ("participant_id") references "participants" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "raised_hands" add constraint "raised_hands_room_id_foreign" foreign key ("room_id") references "rooms" ("id") on delete cascade;`);
    this.addSql(`alter table "chat_messages" add constraint "chat_messages_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id") on delete cascade;`);
    this.addSql(`alter table "chat_messages" add constraint "chat_messages_room_id_foreign" foreign key ("room_id") references "rooms" ("id") on delete cascade;`);
    this.addSql(`alter table "chat_messages" add constraint "chat_messages_sender_id_foreign" foreign key ("sender_id") references "participants" ("id") on delete cascade;`);
  }
}
