// The python client generated from spec/openapi.yaml (`npm run sdk`, docs/decisions.md §12) runs the whole integrator
// journey against the real app: test/sdk/flow.py, in a virtualenv holding the client's requirements from PyPI,
// with no hand edits to the generated code.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../scripts/generate.ts';
import { pythonSdkEnv } from '../../scripts/sdk.ts';
import { ADMIN_KEY } from '../helpers/test-app.ts';
import type { FlowResult } from './flow-types.ts';
import { createSdkStack, expectFlowSucceeded, SDK_WEBHOOK_SECRET, type SdkStack } from './sdk-stack.ts';

const execFileAsync = promisify(execFile);
let env: { python: string; pythonPath: string };
let sdk: SdkStack;

beforeAll(async () => {
  env = await pythonSdkEnv();
  sdk = await createSdkStack();
}, 300_000);
afterAll(async () => {
  await sdk?.close();
});

test('the whole flow runs through the generated client', async () => {
  const { stdout, stderr } = await execFileAsync(env.python, [join(REPO_ROOT, 'test', 'sdk', 'flow.py')], {
    env: {
      PATH: process.env.PATH ?? '',
      PYTHONPATH: env.pythonPath,
      CONVENE_BASE_URL: sdk.stack.baseUrl,
      CONVENE_ADMIN_KEY: ADMIN_KEY,
      CONVENE_WEBHOOK_URL: sdk.webhookUrl,
      CONVENE_WEBHOOK_SECRET: SDK_WEBHOOK_SECRET,
    },
    maxBuffer: 4 * 1024 * 1024,
  });
  console.log(`python flow:\n  ${stderr.trim().split('\n').join('\n  ')}`);
  const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as FlowResult;
  await expectFlowSucceeded(result, sdk);
}, 120_000);
