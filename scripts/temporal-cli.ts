// `npm run temporal -- <args>`: the project's own `temporal` CLI (pinned in scripts/tools.ts, installed into .tools/)
// pointed at the dev stack's Temporal, so an operator types `npm run temporal -- workflow list` and nothing more.
// TEMPORAL_ADDRESS (and TEMPORAL_NAMESPACE) override the dev defaults; the CLI itself reads both variables.
// docs/operations.md is the runbook that uses it.
import { spawn } from 'node:child_process';
import { readDevSettings } from './stack/dev-settings.ts';
import { ensureTool, projectRoot } from './tools.ts';

const settings = readDevSettings(process.env, projectRoot);
const address = 'external' in settings.temporal ? settings.temporal.external : `127.0.0.1:${settings.temporal.port}`;
const binary = await ensureTool('temporal');
const child = spawn(binary, process.argv.slice(2), {
  stdio: 'inherit',
  env: { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: settings.temporalNamespace },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
