import { Migration } from '@mikro-orm/migrations';

// Rooms and participants. A room name is unique per tenant among active rooms only (docs/decisions.md §2): a partial index.
export class Migration20261121RoomsParticipants extends Migration {
  override up(): void {
    this.addSql(`create table "rooms" ("id" uuid not null, "tenant_id" uuid not null, "name" varchar(100) not null, "status" varchar(16) not null, "max_participants" int not null, "recording_enabled" boolean not null, "chat_enabled" boolean not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "ended_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "rooms" add constraint "rooms_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id") on delete cascade;`);
    this.addSql(`create unique index "rooms_tenant_active_name_unique" on "rooms" ("tenant_id", "name") where "status" = 'active';`);
    this.addSql(`create index "rooms_tenant_created_index" on "rooms" ("tenant_id", "created_at" desc, "id" desc);`);
    this.addSql(`create index "rooms_tenant_name_index" on "rooms" ("tenant_id", "name", "created_at" desc);`);

    this.addSql(`create table "participants" ("id" uuid not null, "tenant_id" uuid not null, "room_id" uuid not null, "display_name" varchar(100) not null, "external_user_id" varchar(255) null, "role" varchar(16) not null, "joined_at" timestamptz not null, "removed_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "participants" add constraint "participants_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id") on delete cascade;`);
    this.addSql(`alter table "participants" add constraint "participants_room_id_foreign" foreign key ("room_id") references "rooms" ("id") on delete cascade;`);
    this.addSql(`create index "participants_room_current_index" on "participants" ("room_id", "joined_at") where "removed_at" is null;`);
    this.addSql(`create index "participants_tenant_index" on "participants" ("tenant_id");`);
  }
}
