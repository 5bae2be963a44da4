// `npm run build`: compiles to dist/ and lays out what the compiled code reads at run time, so production runs
// `node dist/main.js api|worker` with no source tree beside it.
//   node scripts/build.ts [--out DIR] [--skip-typecheck]
// DIR defaults to dist; test/integration/build.test.ts builds elsewhere, and skips the type check (tsc --noCheck: the same
// files, half the CPU) because npm test has type-checked the same sources already.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { out: { type: 'string', default: 'dist' }, 'skip-typecheck': { type: 'boolean', default: false } } });
const out = resolve(values.out);

rmSync(out, { recursive: true, force: true });
const tsc = spawnSync('node_modules/.bin/tsc', ['-p', 'tsconfig.build.json', '--outDir', out, ...(values['skip-typecheck'] ? ['--noCheck'] : [])], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
// tsconfig.build.json compiles src/, workflows/ and generated/, and tsc follows imports: a dev/, scripts/ or test/ folder
// here means production code imports development code (lint refuses it too, docs/architecture.md habit 16).
const strays = readdirSync(out).filter((name) => !['src', 'workflows', 'generated'].includes(name));
if (strays.length > 0) {
  console.error(`build: ${strays.join(', ')} compiled into ${values.out}/: production code imports development code`);
  process.exit(1);
}

// The contract is served and used for validation at run time.
cpSync('spec', join(out, 'spec'), { recursive: true });
mkdirSync(join(out, 'generated'), { recursive: true });
for (const file of readdirSync('generated')) {
  if (!file.endsWith('.ts')) cpSync(`generated/${file}`, join(out, 'generated', file));
}
writeFileSync(join(out, 'main.js'), "// Entry point: node dist/main.js api|worker\nimport './src/main.js';\n");
console.log(`built ${values.out}/ (node ${values.out}/main.js api | worker)`);
