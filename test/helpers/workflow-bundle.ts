// Worker.create's workflows for a worker in a test file: the run's bundle of workflows/ (WORKFLOW_BUNDLE_PATH, written
// once by test/harness/global-setup.ts), so each worker skips its own webpack build; workflows/ itself without one.
import type { WorkerOptions } from '@temporalio/worker';
import { workflowSource } from '../../src/temporal/workflow-bundle.ts';

export function testWorkflows(): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  return workflowSource(process.env.WORKFLOW_BUNDLE_PATH, undefined);
}
