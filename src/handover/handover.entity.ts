import { defineEntity, p } from '@mikro-orm/core';

// The hand-over outbox (docs/decisions.md §15). src/handover/handover.ts and relay.ts read and write it with plain SQL; this
// definition exists so migrations and scripts/schema-diff.ts know the table (migration 20261125-handover). No foreign
// keys: a tenant purge is recorded in the very transaction that deletes the tenant, and must outlive its rows.
export const WorkflowHandoverSchema = defineEntity({
  name: 'WorkflowHandover',
  tableName: 'workflow_handovers',
  indexes: [
    {
      name: 'workflow_handovers_pending_index',
      expression: 'create index "workflow_handovers_pending_index" on "workflow_handovers" ("next_attempt_at", "id") where "started_at" is null',
    },
    { name: 'workflow_handovers_workflow_id_index', properties: ['workflowId'] },
  ],
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    workflowType: p.string().length(64),
    workflowId: p.string().length(200),
    taskQueue: p.string().length(200),
    start: p.json<Record<string, unknown>>(),
    attempts: p.integer().default(0),
    lastError: p.string().length(1000).nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    nextAttemptAt: p.datetime().defaultRaw('now()'),
    startedAt: p.datetime().nullable(),
    /** The recording request's or activity's W3C trace context, continued by the start (docs/decisions.md §12). */
    traceContext: p.json<Record<string, string>>().nullable(),
  },
});
