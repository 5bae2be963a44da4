import { Migration } from '@mikro-orm/migrations';

// Resume (docs/decisions.md §11): each room's counter also numbers its events (`event_seq`, the room's last `seq`), and
// the events themselves are kept for WS_RESUME_WINDOW (at most the last 1,000 of a room) to be sent again.
export class Migration20261128RoomEventLog extends Migration {
  override up(): void {
    this.addSql(`alter table "room_event_sequences" add column "event_seq" bigint not null default 0;`);
    this.addSql(`create table "room_events" ("room_id" uuid not null, "seq" bigint not null, "message" text not null, "created_at" timestamptz not null, primary key ("room_id", "seq"));`);
    this.addSql(`create index "room_events_created_at_index" on "room_events" ("created_at");`);
  }
}
