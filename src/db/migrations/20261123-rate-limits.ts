import { Migration } from '@mikro-orm/migrations';

// Per-tenant request counters shared by every API instance (src/http/rate-limit.ts): one row per key and fixed window.
export class Migration20261123RateLimits extends Migration {
  override up(): void {
    this.addSql(`create table "rate_limit_windows" ("key" varchar(100) not null, "window_start" timestamptz not null, "hits" int not null, primary key ("key", "window_start"));`);
    this.addSql(`create index "rate_limit_windows_window_start_index" on "rate_limit_windows" ("window_start");`);
  }
}
