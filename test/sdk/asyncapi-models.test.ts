// The message models `asyncapi generate models typescript` (@asyncapi/cli, run offline) writes from
// spec/asyncapi.yaml pass strict tsc, and every schema has a name of its own (docs/decisions.md §12): a `const` without a
// type, a boolean const or an inline schema without a title would show up here as a tsc error or an AnonymousSchema.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { asyncapiCli } from '../../scripts/asyncapi-cli.ts';
import { REPO_ROOT } from '../../scripts/generate.ts';

const execFileAsync = promisify(execFile);
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'convene-asyncapi-models-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

test('the generated TypeScript message models are strict-tsc clean and all named', async () => {
  const models = join(scratch, 'models');
  const generated = await asyncapiCli(['generate', 'models', 'typescript', join(REPO_ROOT, 'spec', 'asyncapi.yaml'), '-o', models]);
  expect(generated.code).toBe(0);
  const files = await readdir(models);
  expect(files).toEqual(expect.arrayContaining(['ChatMessageEvent.ts', 'MeetingRecordingReadyPayload.ts', 'ErrorEventCode.ts']));
  expect(files.filter((name) => name.startsWith('AnonymousSchema'))).toEqual([]);

  const tsconfig = join(scratch, 'tsconfig.json');
  await writeFile(
    tsconfig,
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', lib: ['es2022'], types: [] },
      include: [join(models, '*.ts')],
    }),
  );
  const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await execFileAsync(process.execPath, [tsc, '-p', tsconfig]).then(
    () => ({ code: 0, output: '' }),
    (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
  );
  expect(result).toEqual({ code: 0, output: '' });
}, 120_000);
