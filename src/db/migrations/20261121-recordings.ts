import { Migration } from '@mikro-orm/migrations';

// Recordings (docs/decisions.md §7). Partial unique indexes: one active recording per room, one row per provider recording.
export class Migration20261121Recordings extends Migration {
  override up(): void {
    this.addSql(`create table "recordings" ("id" uuid not null, "tenant_id" uuid not null, "room_id" uuid not null, "status" varchar(16) not null, "upstream_recording_id" varchar(255) null, "storage_tier" varchar(16) null, "storage_bucket" varchar(255) null, "object_key" varchar(1024) null, "content_type" varchar(255) null, "size_bytes" bigint null, "duration_seconds" int null, "started_at" timestamptz null, "stopped_at" timestamptz null, "ready_at" timestamptz null, "archived_at" timestamptz null, "deleted" boolean not null default false, "deleted_at" timestamptz null, "purged_at" timestamptz null, "failure_reason" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "recordings_tenant_created_index" on "recordings" ("tenant_id", "created_at" desc, "id" desc) where "deleted" = false;`);
    this.addSql(`create index "recordings_room_index" on "recordings" ("room_id");`);
    this.addSql(`create unique index "recordings_room_active_unique" on "recordings" ("room_id") where "status" = 'recording';`);
    this.addSql(`create unique index "recordings_upstream_unique" on "recordings" ("upstream_recording_id") where "upstream_recording_id" is not null;`);
    this.addSql(`alter table "recordings" add constraint "recordings_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id") on delete cascade;`);
    this.addSql(`alter table "recordings" add constraint "recordings_room_id_foreign" foreign key ("room_id") references "rooms" ("id") on delete cascade;`);
  }
}
