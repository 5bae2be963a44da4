// The mechanical rewrite of old-style citations, which named files outside the repository, to the repository's own
// documents: `DECISIONS §7` → `docs/decisions.md §7`, `ARCHITECTURE habit 1` → `docs/architecture.md habit 1`, with
// every variant in use (lists `§4, §11`, runs `§4–5`, `§8-§9`, `§§7–9`, a wrapped comment line, bare file names and
// paths into the old shared folder). Safe to run again: new-style citations are left as they are.
//
//   node scripts/rewrite-citations.ts          rewrites the files `scripts/check-citations.ts` scans, prints each one,
//                                              and regenerates generated/ when a spec/ file changed
//   node scripts/rewrite-citations.ts --dry    prints what would change, writes nothing
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot, scannedFiles } from './check-citations.ts';

const SECTION = String.raw`\d+(?:\.\d+)?`;
/** `§4, §11`, `§4–5`, `§8-§9`, `§§7–9`: the section part of a decision citation. */
const SECTION_LIST = new RegExp(String.raw`§{1,2}${SECTION}(?:\s*(?:,|and|&|–|-)\s*§{0,2}${SECTION})*`);
// Between the file name and its sections a citation may wrap onto the next comment line (`//`, `*`, `#`).
const GAP = String.raw`(?:[ \t]*|[ \t]*\r?\n[ \t]*(?:\/\/|\*|#)?[ \t]*)`;
const OLD_DECISIONS = new RegExp(String.raw`(?:(?:\.\.\/)+|\/work\/)?(?:shared\/)?\bDECISIONS(\.md)?\b(?:(${GAP})(${SECTION_LIST.source}))?`, 'g');
const OLD_ARCHITECTURE = /(?:(?:\.\.\/)+|\/work\/)?(?:shared\/)?\bARCHITECTURE(\.md)?\b((?:\s|\/\/|\*|#)+habit)?/g;

/** `§§7–9` → `§7–9`, `§8-§9` → `§8–9`; lists keep their commas (`§4, §11`). */
export function normaliseSections(list: string): string {
  return list
    .replace(/^§§/, '§')
    .replace(new RegExp(String.raw`(${SECTION})\s*[–-]\s*§{0,2}(${SECTION})`, 'g'), '$1–$2');
}

export function rewriteCitations(text: string): string {
  return text
    .replace(OLD_DECISIONS, (whole, md: string | undefined, gap: string | undefined, sections: string | undefined) => {
      // The word alone (a heading, a variable name) is not a citation: only the file name or a section sign is.
      if (md === undefined && sections === undefined) return whole;
      if (sections === undefined) return 'docs/decisions.md';
      return `docs/decisions.md${gap || ' '}${normaliseSections(sections)}`;
    })
    .replace(OLD_ARCHITECTURE, (whole, md: string | undefined, habit: string | undefined) => {
      if (md === undefined && habit === undefined) return whole;
      return `docs/architecture.md${habit ?? ''}`;
    });
}

if (import.meta.main) {
  const dry = process.argv.includes('--dry');
  const changed: string[] = [];
  for (const file of scannedFiles()) {
    const path = join(projectRoot, file);
    const before = readFileSync(path, 'utf8');
    const after = rewriteCitations(before);
    if (after === before) continue;
    changed.push(file);
    if (!dry) writeFileSync(path, after);
  }
  for (const file of changed) console.log(`${dry ? 'would rewrite' : 'rewrote'} ${file}`);
  console.log(`${changed.length} file(s) ${dry ? 'to rewrite' : 'rewritten'}`);
  if (!dry && changed.some((file) => file.startsWith('spec/'))) {
    // generated/ carries the specs' descriptions, so it follows them (the same step as `npm run generate`).
    const { generate, parseArgs } = await import('./generate.ts');
    await generate(parseArgs([]));
    console.log('spec/ changed: generated/ regenerated');
  }
}
