// The typescript-fetch client generated from spec/openapi.yaml (`npm run sdk`, docs/decisions.md §12): it compiles under
// strict tsc together with a flow written against it, and that flow runs the whole integrator journey against the
// real app (test/sdk/typescript.flow.ts), with no hand edits to the generated code.
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../scripts/generate.ts';
import { generateSdk } from '../../scripts/sdk.ts';
import { ADMIN_KEY } from '../helpers/test-app.ts';
import type { FlowOptions, FlowResult } from './flow-types.ts';
import { createSdkStack, expectFlowSucceeded, SDK_WEBHOOK_SECRET, type SdkStack } from './sdk-stack.ts';

const execFileAsync = promisify(execFile);
/** Where the first test builds the client and the flow (JavaScript), which the second runs. */
const builtDir = () => join(sdkDir, 'built');
let sdkDir: string;
let sdk: SdkStack;

beforeAll(async () => {
  sdkDir = (await generateSdk('typescript-fetch')).dir;
  sdk = await createSdkStack();
}, 180_000);
afterAll(async () => {
  await sdk?.close();
});

test('the generated client and a flow written against it pass strict tsc, which builds them', async () => {
  const tsconfig = join(sdkDir, 'tsconfig.strict.json');
  // Built as an integrator's project would build it (the generated code uses parameter properties and
  // extensionless imports, which Node cannot run as it is): CommonJS, in a folder that says so.
  await rm(builtDir(), { recursive: true, force: true });
  await mkdir(builtDir(), { recursive: true });
  await writeFile(join(builtDir(), 'package.json'), JSON.stringify({ type: 'commonjs' }));
  await writeFile(
    tsconfig,
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: 'es2022',
        module: 'commonjs',
        moduleResolution: 'node10',
        lib: ['es2022', 'dom'],
        types: [],
        rootDir: REPO_ROOT,
        outDir: builtDir(),
      },
      include: ['src/**/*.ts', join(REPO_ROOT, 'test', 'sdk', 'typescript.flow.ts')],
    }),
  );
  const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await execFileAsync(process.execPath, [tsc, '-p', tsconfig]).then(
    () => ({ code: 0, output: '' }),
    (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
  );
  expect(result).toEqual({ code: 0, output: '' });
}, 120_000);

test('the whole flow runs through the generated client', async () => {
  const flow = join(builtDir(), 'test', 'sdk', 'typescript.flow.js');
  const { runTypeScriptFlow } = createRequire(import.meta.url)(flow) as { runTypeScriptFlow: (options: FlowOptions) => Promise<FlowResult> };
  const lines: string[] = [];
  const result = await runTypeScriptFlow({
    baseUrl: sdk.stack.baseUrl,
    adminKey: ADMIN_KEY,
    webhookUrl: sdk.webhookUrl,
    webhookSecret: SDK_WEBHOOK_SECRET,
    log: (line) => lines.push(line),
  });
  console.log(`typescript-fetch flow:\n  ${lines.join('\n  ')}`);
  await expectFlowSucceeded(result, sdk);
}, 120_000);
