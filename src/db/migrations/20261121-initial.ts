import { Migration } from '@mikro-orm/migrations';

// Tenants, their refresh-token families, and the JWT signing keys.
export class Migration20261121Initial extends Migration {
  override up(): void {
    this.addSql(`create table "signing_keys" ("kid" varchar(64) not null, "private_jwk_sealed" text not null, "public_jwk" jsonb not null, "created_at" timestamptz not null, primary key ("kid"));`);
    this.addSql(`create table "tenants" ("id" uuid not null, "name" varchar(200) not null, "api_key_hash" varchar(64) not null, "api_key_id" uuid not null, "max_concurrent_rooms" int not null, "max_participants_per_room" int not null, "max_recording_duration_minutes" int not null, "config" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "tenants" add constraint "tenants_api_key_hash_unique" unique ("api_key_hash");`);
    this.addSql(`create table "refresh_tokens" ("jti" uuid not null, "family_id" uuid not null, "tenant_id" uuid not null, "participant_id" uuid null, "expires_at" timestamptz not null, "used_at" timestamptz null, "revoked_at" timestamptz null, "created_at" timestamptz not null, primary key ("jti"));`);
    this.addSql(`create index "refresh_tokens_family_id_index" on "refresh_tokens" ("family_id");`);
    this.addSql(`create index "refresh_tokens_participant_id_index" on "refresh_tokens" ("participant_id");`);
    this.addSql(`alter table "refresh_tokens" add constraint "refresh_tokens_tenant_id_foreign" foreign key ("tenant_id") references "tenants" ("id") on delete cascade;`);
  }
}
