import { Migration } from '@mikro-orm/migrations';

// A hand-over keeps the trace context of the request or activity that recorded it, so the relay's start continues that
// trace (docs/decisions.md §12, §15): the W3C `traceparent` (and `tracestate`), null when tracing is off.
export class Migration20261128HandoverTraceContext extends Migration {
  override up(): void {
    this.addSql(`alter table "workflow_handovers" add column "trace_context" jsonb null;`);
  }
}
