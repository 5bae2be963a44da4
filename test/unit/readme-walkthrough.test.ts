// The README's curl walk-through configures the tenant once (step 3 of "Try it") and later promises a transcript,
// summary and action items for the recording it makes. The include_* flags default to false, so that promise holds
// only if step 3's patch asks for them: this reads the patch out of the README and applies it as the API would.
import { readFileSync } from 'node:fs';
import { mergePatch, withDefaults, type StoredTenantConfig } from '../../src/modules/tenants/tenant-config.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('step 3 of the walk-through enables the post-meeting webhook with every include flag', () => {
  const step = /^# 3\. Configure the tenant[\s\S]*?-d '([^']*)'/m.exec(readme);
  expect(step).not.toBeNull();
  const patch = JSON.parse(step![1]) as StoredTenantConfig;
  const hook = withDefaults(mergePatch<StoredTenantConfig>({}, patch)).post_meeting_webhook;
  expect(hook).toMatchObject({
    enabled: true,
    include_recording: true,
    include_transcript: true,
    include_summary: true,
    include_action_items: true,
  });
});

// The walk-through is one session in one shell (plus a receiver and room clients in other terminals): it must read
// top to bottom without a step that fails or a surprise a newcomer has to debug.
const walkthrough = readme.slice(readme.indexOf('## Try it (curl)'), readme.indexOf('## Response shapes'));
const shell = [...walkthrough.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((block) => block[1]).join('\n');
const RECORDING_START = /\$BASE\/rooms\/([\w-]+)\/recordings\/start/g;

test('the walk-through is all there, between its first heading and the response shapes', () => {
  expect(walkthrough.length).toBeGreaterThan(1000);
  expect(shell).toContain('recordings/start');
});

test('every shell variable is set before it is used, and answers go to the session working folder, not fixed /tmp files', () => {
  expect(walkthrough).not.toMatch(/\/tmp\//);
  const assigned = new Set<string>();
  for (const line of shell.split('\n')) {
    const code = line.replace(/(^|\s)#.*$/, ''); // comments may mention variables
    for (const [, name] of code.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)) {
      expect({ line, defined: assigned.has(name) }).toEqual({ line, defined: true });
    }
    for (const [, name] of code.matchAll(/(?:^|[\s;(])([A-Z_][A-Z0-9_]*)=/g)) assigned.add(name);
  }
  expect(assigned).toContain('WORK');
  expect(shell).toMatch(/^WORK=\$\(mktemp -d\)/m);
});

test('the webhook receiver starts before anything is recorded', () => {
  const receiver = walkthrough.indexOf('npx node examples/webhook-receiver.ts');
  const firstRecording = walkthrough.search(RECORDING_START);
  expect(receiver).toBeGreaterThan(0);
  expect(firstRecording).toBeGreaterThan(receiver);
});

test("the room clients join the walk-through's own room, created with recording enabled, so they see its recordings", () => {
  const recordedRooms = new Set([...shell.matchAll(RECORDING_START)].map((match) => match[1]));
  expect(recordedRooms.size).toBe(1);
  const [room] = recordedRooms;
  const clients = [...shell.matchAll(/^.*examples\/room-client\.ts.*$/gm)].map((match) => match[0]);
  expect(clients.length).toBeGreaterThan(0);
  for (const client of clients) {
    expect(client).toContain(`--room ${room}`);
    expect(client).toMatch(/CONVENE_API_KEY=|--api-key/); // the walk-through's tenant, not a fresh one
  }
  const creations = [...shell.matchAll(/-X POST \$BASE\/rooms -H[^\n]*\\\n\s*-d '([^']*)'/g)].map((match) => JSON.parse(match[1]));
  expect(creations.filter((body) => body.name === room)).toEqual([{ name: room, config: { recording_enabled: true } }]);
  expect(shell.indexOf(`"name":"${room}"`)).toBeLessThan(shell.indexOf('examples/room-client.ts'));
});

test('"record again" records in the same room without creating it a second time', () => {
  expect([...shell.matchAll(RECORDING_START)].length).toBeGreaterThanOrEqual(2);
});

// docs/integrating.md continues the same session: its shell blocks use the README's variables (not names of their
// own a pasted command would find empty), and its Express verifier is a drop-in for the README's receiver.
const integrating = readFileSync(new URL('../../docs/integrating.md', import.meta.url), 'utf8');
const integratingShell = [...integrating.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((block) => block[1]).join('\n');

test("docs/integrating.md's shell blocks use only variables the README's session or an earlier line sets, curl -s", () => {
  const assigned = new Set<string>();
  for (const line of shell.split('\n')) for (const [, name] of line.matchAll(/(?:^|[\s;(])([A-Z_][A-Z0-9_]*)=/g)) assigned.add(name);
  expect([...assigned]).toEqual(expect.arrayContaining(['BASE', 'TENANT', 'KEY', 'WORK']));
  for (const line of integratingShell.split('\n')) {
    const code = line.replace(/(^|\s)#.*$/, '');
    for (const [, name] of code.matchAll(/(?:^|[\s;(])([A-Z_][A-Z0-9_]*)=/g)) assigned.add(name);
    for (const [, name] of code.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)) {
      expect({ line, defined: assigned.has(name) }).toEqual({ line, defined: true });
    }
    if (/^curl /.test(code)) expect(code).toMatch(/^curl -s/);
  }
});

test("adding an allowed origin in docs/integrating.md keeps the origins the README's step 3 set", () => {
  const readmeOrigins = JSON.parse(/^# 3\. Configure the tenant[\s\S]*?-d '([^']*)'/m.exec(readme)![1]).allowed_origins as string[];
  expect(readmeOrigins.length).toBeGreaterThan(0);
  expect(integratingShell).not.toMatch(/-d '\{"allowed_origins"/); // a literal list would replace them (merge patch)
  expect(integratingShell).toMatch(/\.\.\.\(require\('\$WORK\/[\w-]+\.json'\)\.data\.config\.allowed_origins/);
});

test("the Express verifier of docs/integrating.md takes the README receiver's secret variable, port and path", () => {
  const receiver = /^WEBHOOK_SECRET=\S+ npx node examples\/webhook-receiver\.ts\s+# listens on http:\/\/127\.0\.0\.1:(\d+)(\/\w+)/m.exec(readme);
  expect(receiver).not.toBeNull();
  const [, port, path] = receiver!;
  expect(integrating).toContain('process.env.WEBHOOK_SECRET');
  expect(integrating).toContain(`app.post('${path}',`);
  expect(integrating).toContain(`app.listen(${port},`);
});
