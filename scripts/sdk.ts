// Generates client SDKs from spec/openapi.yaml with openapi-generator (docs/decisions.md §12): `npm run sdk`.
//   node scripts/sdk.ts [typescript-fetch] [python] [--force]      (both languages by default)
//
// Output goes to .sdk/<generator>/ (git-ignored): the clients are products of the contract, never edited by hand.
// The generator JAR version is pinned in openapitools.json (`generator-cli.version`); the npm CLI fetches that JAR
// from Maven Central on first use and runs it with the machine's Java (17+).
// Each output folder records a hash of the spec, the JAR version and the options it was generated with
// (.sdk/<generator>/.convene-spec-hash); a run whose inputs did not change reuses it (the SDK tests call this).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './generate.ts';
import { withFileLock } from './tools.ts';

export const SDK_ROOT = join(REPO_ROOT, '.sdk');
export const SPEC_PATH = join(REPO_ROOT, 'spec', 'openapi.yaml');

export const GENERATORS = {
  'typescript-fetch': { supportsES6: 'true', npmName: '@convene/client', npmVersion: '1.0.0' },
  python: { packageName: 'convene_client', projectName: 'convene-client', packageVersion: '1.0.0' },
} as const satisfies Record<string, Record<string, string>>;
export type GeneratorName = keyof typeof GENERATORS;

const HASH_FILE = '.convene-spec-hash';
/**
 * One generation is a JVM run of a few seconds: the JIT's optimising tier and the parallel collector cost more CPU than
 * they save in it (typescript-fetch, 2 cores: 14.4 → 8.7 s of CPU, 8.4 → 6.2 s). JAVA_OPTS, when set, wins.
 */
const SHORT_RUN_JAVA_OPTS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';
const execFileAsync = promisify(execFile);

export function sdkDir(generator: GeneratorName): string {
  return join(SDK_ROOT, generator);
}

async function pinnedJarVersion(): Promise<string> {
  const config = JSON.parse(await readFile(join(REPO_ROOT, 'openapitools.json'), 'utf8'));
  const version = config['generator-cli']?.version;
  if (typeof version !== 'string') throw new Error('openapitools.json has no generator-cli.version');
  return version;
}

async function inputsHash(generator: GeneratorName): Promise<string> {
  const hash = createHash('sha256');
  hash.update(await readFile(SPEC_PATH));
  hash.update(await pinnedJarVersion());
  hash.update(JSON.stringify([generator, GENERATORS[generator]]));
  return hash.digest('hex');
}

async function readOrEmpty(path: string): Promise<string> {
  return readFile(path, 'utf8').catch(() => '');
}

/**
 * Generates one client into .sdk/<generator>/ unless the folder already holds one from the same inputs. Under a lock
 * per generator: two SDK test files may ask for the same client at once (each would empty the folder the other writes).
 */
export function generateSdk(generator: GeneratorName, options: { force?: boolean } = {}): Promise<{ dir: string; cached: boolean }> {
  return withFileLock(join(SDK_ROOT, `${generator}.lock`), () => generateUnlocked(generator, options));
}

async function generateUnlocked(generator: GeneratorName, options: { force?: boolean }): Promise<{ dir: string; cached: boolean }> {
  const dir = sdkDir(generator);
  const hash = await inputsHash(generator);
  if (!options.force && (await readOrEmpty(join(dir, HASH_FILE))) === hash) return { dir, cached: true };

  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const properties = Object.entries(GENERATORS[generator])
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  const cli = join(REPO_ROOT, 'node_modules', '@openapitools', 'openapi-generator-cli', 'main.js');
  await execFileAsync(
    process.execPath,
    [cli, 'generate', '-i', SPEC_PATH, '-g', generator, '-o', dir, '--additional-properties', properties],
    { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, JAVA_OPTS: process.env.JAVA_OPTS ?? SHORT_RUN_JAVA_OPTS } },
  );
  await writeFile(join(dir, HASH_FILE), hash);
  return { dir, cached: false };
}

const PYTHON_ENV = join(REPO_ROOT, '.tools', 'sdk-python');

/**
 * A virtualenv (.tools/sdk-python, git-ignored) holding the generated Python client's requirements from PyPI
 * (urllib3, pydantic, python-dateutil, typing-extensions), reinstalled only when requirements.txt changes.
 * Returns the interpreter and the PYTHONPATH that makes `import convene_client` find .sdk/python.
 */
export async function pythonSdkEnv(): Promise<{ python: string; pythonPath: string }> {
  const { dir } = await generateSdk('python');
  const requirements = join(dir, 'requirements.txt');
  const hash = createHash('sha256').update(await readFile(requirements)).digest('hex');
  const python = join(PYTHON_ENV, 'bin', 'python');
  const stamp = join(PYTHON_ENV, '.convene-requirements-hash');
  // Under a lock: two test files may prepare it at once (each would remove the folder the other builds).
  await withFileLock(`${PYTHON_ENV}.lock`, async () => {
    if ((await readOrEmpty(stamp)) === hash) return;
    await rm(PYTHON_ENV, { recursive: true, force: true });
    await execFileAsync('python3', ['-m', 'venv', PYTHON_ENV]);
    await execFileAsync(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', requirements], {
      maxBuffer: 16 * 1024 * 1024,
    });
    await writeFile(stamp, hash);
  });
  return { python, pythonPath: dir };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const named = args.filter((arg) => arg !== '--force');
  for (const name of named) {
    if (!(name in GENERATORS)) throw new Error(`unknown generator ${name} (expected ${Object.keys(GENERATORS).join(', ')})`);
  }
  const generators = (named.length > 0 ? named : Object.keys(GENERATORS)) as GeneratorName[];
  // The npm CLI fetches the pinned JAR on first use without a word: say so, or a first run looks stuck.
  const version = await pinnedJarVersion();
  if (!existsSync(join(REPO_ROOT, 'node_modules', '@openapitools', 'openapi-generator-cli', 'versions', `${version}.jar`))) {
    console.log(`openapi-generator ${version}: downloading its JAR from Maven Central, once (about 32 MB, no progress shown)…`);
  }
  for (const generator of generators) {
    const started = performance.now();
    const { dir, cached } = await generateSdk(generator, { force });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`${generator}: ${relative(process.cwd(), dir)}/ ${cached ? '(unchanged spec, reused)' : `generated in ${seconds} s`}`);
  }
}
