import { Migration } from '@mikro-orm/migrations';

// The webhook test event (docs/decisions.md §10) is a delivery about no meeting: its room id is null.
export class Migration20261128TestWebhookEvent extends Migration {
  override up(): void {
    this.addSql(`alter table "webhook_deliveries" alter column "room_id" drop not null;`);
  }
}
