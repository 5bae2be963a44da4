import { Migration } from '@mikro-orm/migrations';

// The hand-over outbox (docs/decisions.md §15): a workflow start (or signal-with-start) recorded in the transaction of
// the change that implies it, relayed to Temporal by src/handover/relay.ts until it is started. No foreign keys: a
// tenant purge is recorded in the very transaction that deletes the tenant, and must outlive its rows.
export class Migration20261125Handover extends Migration {
  override up(): void {
    this.addSql(`create table "workflow_handovers" ("id" bigserial not null, "workflow_type" varchar(64) not null, "workflow_id" varchar(200) not null, "task_queue" varchar(200) not null, "start" jsonb not null, "attempts" int not null default 0, "last_error" varchar(1000) null, "created_at" timestamptz not null default now(), "next_attempt_at" timestamptz not null default now(), "started_at" timestamptz null, primary key ("id"));`);
    // What the relay polls: pending rows, oldest first (the index stays small: started rows drop out of it).
    this.addSql(`create index "workflow_handovers_pending_index" on "workflow_handovers" ("next_attempt_at", "id") where "started_at" is null;`);
    this.addSql(`create index "workflow_handovers_workflow_id_index" on "workflow_handovers" ("workflow_id");`);
  }
}
