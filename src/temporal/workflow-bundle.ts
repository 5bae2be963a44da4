import { bundleWorkflowCode, DefaultLogger, type WorkerOptions } from '@temporalio/worker';
import { rename, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** From src/ (dev, tests) the workflows are .ts; from dist/ they are compiled .js. */
export const WORKFLOWS_PATH = fileURLToPath(
  new URL(`../../workflows/index.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url),
);

/**
 * Bundles workflows/ once, as the worker would (webpack, a few seconds of CPU), into `path`, for workers started with
 * `WORKFLOW_BUNDLE_PATH=path`: Temporal's practice for production, and the test harness's, whose many workers would
 * otherwise each bundle the same code (test/harness/global-setup.ts). Without the tracing interceptors: a worker with
 * tracing on bundles for itself (workflowSource). Written whole, then renamed, so no worker reads half a file.
 */
export async function writeWorkflowBundle(path: string): Promise<void> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: new DefaultLogger('WARN') });
  const partial = `${path}.partial-${process.pid}`;
  await writeFile(partial, code);
  await rename(partial, path);
}

/**
 * Where Worker.create takes the workflows from: the prebuilt bundle when one is configured and the worker needs no
 * workflow interceptor modules (tracing, which the bundle lacks), else workflows/ bundled at start as before.
 */
export function workflowSource(
  bundlePath: string | undefined,
  workflowModules: readonly string[] | undefined,
): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  if (bundlePath && !workflowModules?.length) return { workflowBundle: { codePath: bundlePath } };
  return { workflowsPath: WORKFLOWS_PATH };
}
