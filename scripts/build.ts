// `npm run build`: compiles to dist/ and lays out what the compiled code reads at run time, so production runs
// `node dist/main.js api|worker` with no source tree beside it.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
const tsc = spawnSync('node_modules/.bin/tsc', ['-p', 'tsconfig.build.json'], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

// The contract is served and used for validation at run time.
cpSync('spec', 'dist/spec', { recursive: true });
mkdirSync('dist/generated', { recursive: true });
for (const file of readdirSync('generated')) {
  if (!file.endsWith('.ts')) cpSync(`generated/${file}`, `dist/generated/${file}`);
}
writeFileSync('dist/main.js', "// Entry point: node dist/main.js api|worker\nimport './src/main.js';\n");
console.log('built dist/ (node dist/main.js api | worker)');
