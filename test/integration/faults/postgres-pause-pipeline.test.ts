// Fault test (docs/decisions.md §15): PostgreSQL *paused* (SIGSTOP of the postmaster and its backends, then
// SIGCONT: connections and statements hang instead of being refused) after an upload, before a post-meeting hand-over
// and during a re-send; each webhook arrives once. The scenario and its assertions: test/helpers/postgres-fault-pipeline.ts.
import { definePostgresFaultPipelineTest } from '../../helpers/postgres-fault-pipeline.ts';

definePostgresFaultPipelineTest('paused');
