import { Migration } from '@mikro-orm/migrations';

// The notification's temporary download link, sealed with SECRETS_KEY, kept with the recording (docs/decisions.md §7).
export class Migration20261125RecordingSourceUrl extends Migration {
  override up(): void {
    this.addSql(`alter table "recordings" add column "source_sealed" text null;`);
  }
}
