import { Migration } from '@mikro-orm/migrations';

// Outgoing webhook deliveries and their attempts (docs/decisions.md §10).
export class Migration20261123WebhookDeliveries extends Migration {
  override up(): void {
    this.addSql(`create table "webhook_deliveries" ("id" uuid not null, "tenant_id" uuid not null, "room_id" uuid not null, "recording_id" uuid null, "event" varchar(64) not null, "status" varchar(16) not null, "url" varchar(2048) not null, "resent_from" uuid null, "attempt_count" int not null default 0, "last_response_status_code" int null, "next_attempt_at" timestamptz null, "created_at" timestamptz not null, "completed_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "webhook_deliveries_tenant_index" on "webhook_deliveries" ("tenant_id", "created_at" desc, "id" desc);`);
    // One original delivery per recording: a repeated createWebhookDelivery finds it instead of making a second.
    this.addSql(`create unique index "webhook_deliveries_recording_unique" on "webhook_deliveries" ("recording_id") where "resent_from" is null;`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id") on delete cascade;`);
    this.addSql(`create table "webhook_delivery_attempts" ("delivery_id" uuid not null, "attempt" int not null, "status" varchar(16) not null, "response_status_code" int null, "duration_ms" int not null, "error" varchar(1000) null, "response_body" text null, "attempted_at" timestamptz not null, "next_attempt_at" timestamptz null, primary key ("delivery_id", "attempt"));`);
    this.addSql(`alter table "webhook_delivery_attempts" add constraint "webhook_delivery_attempts_delivery_id_foreign" foreign key ("delivery_id") references "webhook_deliveries" ("id") on delete cascade;`);
  }
}
