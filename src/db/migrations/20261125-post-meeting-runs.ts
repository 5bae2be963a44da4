import { Migration } from '@mikro-orm/migrations';

// Post-meeting re-runs (docs/decisions.md §9): the result row says which run it holds, and each run has its own
// original delivery (one per recording and run instead of one per recording).
export class Migration20261125PostMeetingRuns extends Migration {
  override up(): void {
    this.addSql(`alter table "post_meeting_results" add column "run" int not null default 1;`);
    this.addSql(`alter table "webhook_deliveries" add column "post_meeting_run" int not null default 1;`);
    this.addSql(`drop index "webhook_deliveries_recording_unique";`);
    this.addSql(
      `create unique index "webhook_deliveries_recording_run_unique" on "webhook_deliveries" ("recording_id", "post_meeting_run") where "resent_from" is null;`,
    );
  }
}
