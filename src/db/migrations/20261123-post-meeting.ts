import { Migration } from '@mikro-orm/migrations';

// Transcripts and post-meeting results (docs/decisions.md §9; the outgoing webhook, docs/decisions.md §10, reads both).
export class Migration20261123PostMeeting extends Migration {
  override up(): void {
    this.addSql(`create table "transcripts" ("id" uuid not null, "tenant_id" uuid not null, "room_id" uuid not null, "recording_id" uuid not null, "origin" varchar(16) not null, "status" varchar(16) not null, "provider" varchar(64) not null, "language" varchar(35) null, "content" jsonb null, "text" text null, "word_count" int null, "failure_reason" text null, "created_at" timestamptz not null, "started_at" timestamptz null, "completed_at" timestamptz null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "transcripts_recording_index" on "transcripts" ("recording_id", "created_at" desc);`);
    this.addSql(`create index "transcripts_room_index" on "transcripts" ("room_id", "created_at" desc) where "origin" = 'post_meeting';`);
    this.addSql(`alter table "transcripts" add constraint "transcripts_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id") on delete cascade;`);
    this.addSql(`alter table "transcripts" add constraint "transcripts_room_id_foreign" foreign key ("room_id") references "rooms" ("id") on delete cascade;`);
    this.addSql(`alter table "transcripts" add constraint "transcripts_recording_id_foreign" foreign key ("recording_id") references "recordings" ("id") on delete cascade;`);

    this.addSql(`create table "post_meeting_results" ("recording_id" uuid not null, "tenant_id" uuid not null, "room_id" uuid not null, "status" varchar(16) not null, "transcript_id" uuid null, "summary" text null, "action_items" jsonb null, "errors" jsonb not null default '[]', "created_at" timestamptz not null, "completed_at" timestamptz null, "updated_at" timestamptz not null, primary key ("recording_id"));`);
    this.addSql(`alter table "post_meeting_results" add constraint "post_meeting_results_recording_id_foreign" foreign key ("recording_id") references "recordings" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "post_meeting_results" add constraint "post_meeting_results_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id") on delete cascade;`);
    this.addSql(`alter table "post_meeting_results" add constraint "post_meeting_results_transcript_id_foreign" foreign key ("transcript_id") references "transcripts" ("id") on delete set null;`);
  }
}
