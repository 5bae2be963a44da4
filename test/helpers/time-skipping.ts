// Temporal's time-skipping test server for workflow tests, ready for DECISIONS §13's starts: every workflow the project
// starts carries the Convene* Keyword search attributes. The dev server registers them at start-up
// (scripts/stack/temporal.ts); this server is one process per test file, so they are registered here, in one place.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { ensureTool } from '../../scripts/tools.ts';
import { SEARCH_ATTRIBUTE_NAMES } from '../../workflows/shared.ts';

export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const path = await ensureTool('temporal-test-server');
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } });
  await registerSearchAttributes(env);
  return env;
}

async function registerSearchAttributes(env: TestWorkflowEnvironment): Promise<void> {
  const searchAttributes = Object.fromEntries(Object.values(SEARCH_ATTRIBUTE_NAMES).map((name) => [name, 2 /* KEYWORD */]));
  try {
    await env.connection.operatorService.addSearchAttributes({ namespace: env.namespace ?? 'default', searchAttributes });
  } catch (err) {
    // UNIMPLEMENTED: this server keeps no visibility store and accepts any attribute (checked when this helper was
    // written: see test/workflows/recordings.test.ts, whose starts carry them). ALREADY_EXISTS: registered before.
    const code = (err as { code?: number }).code;
    if (code !== 12 && code !== 6) throw err;
  }
}
