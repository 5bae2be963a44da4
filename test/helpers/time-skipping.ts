// Temporal's time-skipping test server for workflow tests, ready for docs/decisions.md §13's starts: every workflow the project
// starts carries the Convene* Keyword search attributes. This server refuses a start with an attribute it does not know
// ("search attribute ConveneTenantId is not defined", checked with temporal-test-server 1.40), and it is one process per
// test file, so they are registered here, in one place (the dev server registers them itself: scripts/stack/temporal.ts).
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ensureTool } from '../../scripts/tools.ts';
import { SEARCH_ATTRIBUTE_NAMES } from '../../workflows/shared.ts';

/**
 * The SDK logs at ERROR only: the failures workflow tests cause on purpose would otherwise fill the output with its
 * warnings. The runtime is installed once per jest worker; a second call (another test file) changes nothing.
 */
export function quietSdkLogs(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Already installed by another test file in this jest worker.
  }
}

/** Every workflow test's environment: the time-skipping server, with the Convene* search attributes registered. */
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
    // ALREADY_EXISTS: registered before (a server shared by two environments).
    if ((err as { code?: number }).code !== 6) throw err;
  }
}
