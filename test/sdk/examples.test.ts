// The SDK snippets of docs/integrating.md are files, examples/sdk/quickstart.ts and quickstart.py, and this test runs
// them as the docs tell a newcomer to: the TypeScript one compiled by `tsc -p examples/sdk` into a temporary folder
// and run by Node, the Python one with the generated package on PYTHONPATH, both against the live app. The docs show
// the files verbatim, and nothing is written into the project tree (a stray output folder there breaks lint).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { REPO_ROOT } from '../../scripts/generate.ts';
import { generateSdk, pythonSdkEnv } from '../../scripts/sdk.ts';
import { freePort } from '../helpers/free-port.ts';
import { createRecordingStack, type RecordingStack } from '../helpers/recording-stack.ts';
import { ADMIN_KEY } from '../helpers/test-app.ts';

const execFileAsync = promisify(execFile);
const EXAMPLES = join(REPO_ROOT, 'examples', 'sdk');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let stack: RecordingStack;
let python: { python: string; pythonPath: string };

beforeAll(async () => {
  await generateSdk('typescript-fetch');
  python = await pythonSdkEnv();
  stack = await createRecordingStack({ media: { port: await freePort() } });
}, 300_000);
afterAll(async () => {
  await stack?.close();
});

/** What git sees in the working tree (changed and untracked files, ignored ones included), to prove nothing was written. */
// node_modules/ is left out: npm's tree, where Node's compile cache of the run's other processes lives
// (NODE_COMPILE_CACHE, scripts/test.ts) and grows while this runs.
async function treeState(): Promise<string> {
  const { stdout } = await execFileAsync('git', ['status', '--porcelain', '--untracked-files=all', '--ignored', '--', '.', ':!.sdk', ':!.tools', ':!.data', ':!node_modules'], {
    cwd: REPO_ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

interface QuickstartOutput {
  tenant: string;
  room: string;
  participant: string;
  hasAccessToken: boolean;
}

/** The last stdout line is the snippet's JSON; the rows it names must exist in the app's database. */
async function expectRowsOf(stdout: string): Promise<void> {
  const output = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as QuickstartOutput;
  expect(output).toEqual({ tenant: expect.stringMatching(UUID), room: expect.stringMatching(UUID), participant: expect.stringMatching(UUID), hasAccessToken: true });
  const db = new pg.Client({ connectionString: stack.t.databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query(
      `select r.name, p.display_name, p.role from rooms r join participants p on p.room_id = r.id where r.tenant_id = $1 and r.id = $2 and p.id = $3`,
      [output.tenant, output.room, output.participant],
    );
    expect(rows).toEqual([{ name: 'weekly-sync', display_name: 'Ada', role: 'host' }]);
  } finally {
    await db.end();
  }
}

const env = () => ({ PATH: process.env.PATH ?? '', CONVENE_BASE_URL: stack.baseUrl, CONVENE_ADMIN_KEY: ADMIN_KEY });

test('docs/integrating.md shows the example files as they are', async () => {
  const docs = await readFile(join(REPO_ROOT, 'docs', 'integrating.md'), 'utf8');
  const blocks = [...docs.matchAll(/^```(ts|python)\n([\s\S]*?)^```$/gm)].map(([, lang, body]) => [lang, body]);
  expect(blocks).toContainEqual(['ts', await readFile(join(EXAMPLES, 'quickstart.ts'), 'utf8')]);
  expect(blocks).toContainEqual(['python', await readFile(join(EXAMPLES, 'quickstart.py'), 'utf8')]);
});

test('the TypeScript quickstart compiles under strict tsc and runs, writing only to a temporary folder', async () => {
  const before = await treeState();
  const out = await mkdtemp(join(tmpdir(), 'convene-quickstart-'));
  try {
    const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    // The documented command: npx tsc -p examples/sdk --outDir "$OUT" && npx node "$OUT/examples/sdk/quickstart.js"
    await execFileAsync(process.execPath, [tsc, '-p', 'examples/sdk', '--outDir', out], { cwd: REPO_ROOT }).catch((error: { stdout: string }) => {
      throw new Error(`tsc failed:\n${error.stdout}`);
    });
    const { stdout } = await execFileAsync(process.execPath, [join(out, 'examples', 'sdk', 'quickstart.js')], { cwd: REPO_ROOT, env: env() });
    await expectRowsOf(stdout);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
  expect(await treeState()).toBe(before);
}, 120_000);

test('the Python quickstart runs with the generated package on PYTHONPATH', async () => {
  const before = await treeState();
  const { stdout } = await execFileAsync(python.python, ['-B', join(EXAMPLES, 'quickstart.py')], {
    cwd: REPO_ROOT,
    env: { ...env(), PYTHONPATH: python.pythonPath },
  });
  await expectRowsOf(stdout);
  expect(await treeState()).toBe(before);
}, 120_000);
