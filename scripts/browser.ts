// Finds the headless Chromium the browser test drives (`test/e2e/browser.test.ts`): Debian's `chromium` package at
// /usr/bin/chromium, installed with apt-get when it is missing. playwright-core never downloads a browser of its own.
//
//   node scripts/browser.ts          install if missing, print the path
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export class BrowserUnavailableError extends Error {}

/** Path of a Chromium executable, installing Debian's package first when it is not there. */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  const root = process.getuid?.() === 0;
  const sudo = root ? [] : ['sudo', '-n'];
  const run = (args: string[]) => {
    const [command, ...rest] = [...sudo, ...args];
    const result = spawnSync(command, rest, {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (result.status !== 0) {
      throw new BrowserUnavailableError(
        `"${args.join(' ')}" failed (${result.error?.message ?? `exit ${result.status}`}); ` +
          `install Chromium yourself (apt-get install chromium) or point CHROMIUM_PATH at one`,
      );
    }
  };
  process.stderr.write(`[browser] ${CHROMIUM_PATH} missing: installing Debian's chromium package…\n`);
  run(['apt-get', 'update']);
  run(['apt-get', 'install', '-y', '--no-install-recommends', 'chromium']);
  if (!existsSync(CHROMIUM_PATH)) throw new BrowserUnavailableError(`apt-get installed chromium but ${CHROMIUM_PATH} is missing`);
  return CHROMIUM_PATH;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log(ensureChromium());
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
