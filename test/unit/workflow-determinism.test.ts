// The lint guard for workflows/ (ARCHITECTURE, habit 2): workflow code is replayed, so it may import only the
// workflow SDK, other workflow files and *types* (erased before bundling). A Node built-in, an npm package with I/O or
// a runtime import from src/ in workflows/ fails this test, before it can fail a replay in production.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const WORKFLOWS = join(import.meta.dirname, '../../workflows');
const ALLOWED_PACKAGES = new Set(['@temporalio/workflow']);
// Sources of non-determinism that need no import.
const FORBIDDEN_GLOBALS = [/\bMath\.random\(/, /\bsetTimeout\(/, /\bsetInterval\(/, /\bprocess\./, /\brequire\(/, /\bfetch\(/];

const files = readdirSync(WORKFLOWS).filter((f) => f.endsWith('.ts'));

/** Every import/export-from in a file: its specifier and whether it is type-only. */
function importsOf(source: string): Array<{ specifier: string; typeOnly: boolean }> {
  const found: Array<{ specifier: string; typeOnly: boolean }> = [];
  const pattern = /^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const match of source.matchAll(pattern)) {
    const specifier = match[4] ?? match[5] ?? match[6];
    const clause = match[3] ?? '';
    // `import { type A, type B } from` is type-only too.
    const allTypes = /^\{\s*(type\s+\w+(\s+as\s+\w+)?\s*,?\s*)+\}$/.test(clause.trim());
    found.push({ specifier, typeOnly: Boolean(match[2]) || allTypes });
  }
  return found;
}

function violations(source: string): string[] {
  const problems: string[] = [];
  for (const { specifier, typeOnly } of importsOf(source)) {
    if (typeOnly) continue;
    if (specifier.startsWith('./')) continue; // another workflow file, checked on its own
    if (ALLOWED_PACKAGES.has(specifier)) continue;
    problems.push(`runtime import of "${specifier}"`);
  }
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1'); // comments may say anything
  for (const pattern of FORBIDDEN_GLOBALS) if (pattern.test(code)) problems.push(`uses ${pattern.source}`);
  return problems;
}

test('there are workflow files to check', () => {
  expect(files).toEqual(expect.arrayContaining(['shared.ts', 'index.ts', 'recording-ingest.ts']));
});

test.each(files)('workflows/%s imports only the workflow SDK, other workflow files and types', (file) => {
  expect(violations(readFileSync(join(WORKFLOWS, file), 'utf8'))).toEqual([]);
});

test('the guard catches what it is for', () => {
  expect(violations(`import { readFile } from 'node:fs';`)).toEqual(['runtime import of "node:fs"']);
  expect(violations(`import { createActivities } from '../src/activities/index.ts';`)).toEqual([
    'runtime import of "../src/activities/index.ts"',
  ]);
  expect(violations(`import axios from 'axios';`)).toEqual(['runtime import of "axios"']);
  expect(violations(`const x = Math.random();`)).toEqual(['uses \\bMath\\.random\\(']);
  expect(violations(`// restarts of every process.\nconst y = 1;`)).toEqual([]);
  expect(violations(`import type { RecordingActivities } from '../src/activities/recordings.ts';`)).toEqual([]);
  expect(violations(`import { type A, type B } from '../src/x.ts';`)).toEqual([]);
  expect(violations(`import { proxyActivities } from '@temporalio/workflow';`)).toEqual([]);
});
