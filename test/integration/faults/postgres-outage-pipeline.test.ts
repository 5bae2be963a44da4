// Fault test (docs/decisions.md §15): PostgreSQL *stopped* (connections refused, as during a restart or failover)
// for longer than the old retry budget of database steps, after an upload, before a post-meeting hand-over and during
// a re-send; each webhook arrives once. The scenario and its assertions: test/helpers/postgres-fault-pipeline.ts.
import { definePostgresFaultPipelineTest } from '../../helpers/postgres-fault-pipeline.ts';

definePostgresFaultPipelineTest('stopped');
