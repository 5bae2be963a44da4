// Runs the AsyncAPI CLI (@asyncapi/cli) offline: its usage analytics, which POST every command to a third party,
// are switched off through a settings file of our own (ASYNCAPI_METRICS_CONFIG_PATH), so it never touches the
// network or the user's ~/.asyncapi-analytics. npm test runs `validate` through it (docs/decisions.md §12).
//   node scripts/asyncapi-cli.ts validate spec/asyncapi.yaml --fail-severity warn
//   node scripts/asyncapi-cli.ts generate models typescript spec/asyncapi.yaml -o /tmp/models
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './generate.ts';

export interface CliResult {
  code: number;
  output: string;
}

export async function asyncapiCli(args: string[]): Promise<CliResult> {
  const scratch = await mkdtemp(join(tmpdir(), 'convene-asyncapi-cli-'));
  try {
    const settings = join(scratch, 'analytics.json');
    await writeFile(settings, JSON.stringify({ analyticsEnabled: 'false', infoMessageShown: 'true', userID: 'convene' }));
    const cli = join(REPO_ROOT, 'node_modules', '@asyncapi', 'cli', 'bin', 'run_bin');
    return await new Promise<CliResult>((resolve) => {
      execFile(
        process.execPath,
        [cli, ...args],
        { cwd: REPO_ROOT, env: { ...process.env, ASYNCAPI_METRICS_CONFIG_PATH: settings }, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          resolve({ code, output: `${stdout}${stderr}` });
        },
      );
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { code, output } = await asyncapiCli(process.argv.slice(2));
  process.stdout.write(output);
  process.exitCode = code;
}
