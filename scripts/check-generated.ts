// Fails when generated/ is not what `npm run generate` would write from spec/ (CI runs it).
//   node scripts/check-generated.ts [--out DIR] [--openapi FILE] [--asyncapi FILE]   (same options as generate.ts;
//   --out names the directory to check, generated/ by default)
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { GENERATED_FILES, generate, parseArgs } from './generate.ts';
import type { GenerateOptions } from './generate.ts';

async function readOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Names of the files in generatedDir that differ from a fresh generation, or are missing or unexpected. */
export async function staleGeneratedFiles(options: GenerateOptions): Promise<string[]> {
  const generatedDir = options.outDir;
  const scratch = await mkdtemp(join(tmpdir(), 'convene-generated-'));
  try {
    await generate({ ...options, outDir: scratch });
    const stale: string[] = [];
    for (const name of GENERATED_FILES) {
      const [expected, actual] = await Promise.all([readFile(join(scratch, name)), readOrNull(join(generatedDir, name))]);
      if (actual === null) stale.push(`${name} (missing)`);
      else if (!expected.equals(actual)) stale.push(`${name} (differs)`);
    }
    const present = await readdir(generatedDir).catch(() => [] as string[]);
    const known = new Set<string>(GENERATED_FILES);
    for (const name of present) if (!known.has(name)) stale.push(`${name} (not produced by the generator)`);
    return stale;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const options = parseArgs(process.argv.slice(2));
  const shownDir = relative(process.cwd(), options.outDir) || '.';
  const stale = await staleGeneratedFiles(options);
  if (stale.length === 0) {
    console.log(`${shownDir}/ is up to date (${GENERATED_FILES.length} files)`);
  } else {
    console.error(`${shownDir}/ is out of date:`);
    for (const line of stale) console.error(`  ${shownDir}/${line}`);
    console.error('run npm run generate');
    process.exitCode = 1;
  }
}
