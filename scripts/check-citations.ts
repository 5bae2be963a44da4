// Every citation of a reason must lead to a section that exists in this repository (a step of `npm test`, early and
// fast). Two forms are understood:
//   docs/decisions.md §7            a product decision; also `§4, §11`, `§8–9` (a run), `§7.2` (a sub-anchor)
//   docs/architecture.md habit 1    a numbered habit of the architecture document; also `habits 1, 7`
// Sections are read from the documents themselves: `## N. Title` (and `### N.M Title`) headings of docs/decisions.md,
// and the `N. **…**` items under "## Habits" in docs/architecture.md. Older forms that name files outside the
// repository are refused with the form to use instead (`scripts/rewrite-citations.ts` rewrites them mechanically).
// So is any "issue N" (`issue N`, `Issue #N`, `issues N`, wrapped onto the next comment line too): the repository holds
// no issue tracker, so a reader cannot follow it; say the reason where it is needed, or cite the decision. A link into
// another project's tracker (`https://github.com/owner/repo/issues/123`) leads somewhere and is accepted, and so is the
// word without a number ("the main issue", `issues.push(…)`). The verb before a number ("we issue N tokens") reads the
// same to the check: write the number in words. The one place that shows the refused form on purpose is the citation
// tooling (CITATION_EXAMPLE_FILES).
//
//   node scripts/check-citations.ts        prints file:line for each broken citation and exits 1, else one summary line
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export const projectRoot = join(import.meta.dirname, '..');

/** Folders whose files are scanned, and every plain file at the top of the repository (README.md, compose file …). */
export const SCANNED_FOLDERS = ['src', 'workflows', 'dev', 'test', 'scripts', 'bench', 'docs', 'examples', 'spec'];
const SKIPPED_FOLDERS = new Set(['node_modules', '.git', '.data', '.tools', '.sdk', 'dist', 'coverage', 'generated']);
const TEXT_FILE = /(\.(ts|mts|cts|js|mjs|cjs|md|ya?ml|json|py|html|css|sql|sh|txt)|^Dockerfile)$/;
const SKIPPED_FILES = new Set(['package-lock.json']);

/**
 * Files that show the old citation forms on purpose: the rewrite that documents and matches them, and the tests of
 * both scripts. They are neither checked nor rewritten; keep this list to the citation tooling.
 */
export const CITATION_EXAMPLE_FILES = new Set(['scripts/rewrite-citations.ts', 'test/unit/citations.test.ts']);

export interface KnownSections {
  decisions: Set<string>;
  habits: Set<string>;
}

export interface CitationProblem {
  line: number;
  message: string;
}

/** `## 7. Recordings` → "7"; `### 7.2 …` → "7.2". */
export function decisionSections(markdown: string): Set<string> {
  const sections = new Set<string>();
  for (const match of markdown.matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.?\s/gm)) sections.add(match[1]);
  return sections;
}

/** The numbered items (`12. **…**`) of the "## Habits" section of docs/architecture.md. */
export function habitNumbers(markdown: string): Set<string> {
  const start = markdown.search(/^## Habits/m);
  if (start < 0) return new Set();
  const rest = markdown.slice(start + 1);
  const end = rest.search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  return new Set([...section.matchAll(/^(\d+)\. \*\*/gm)].map((match) => match[1]));
}

export function knownSections(root = projectRoot): KnownSections {
  return {
    decisions: decisionSections(readFileSync(join(root, 'docs', 'decisions.md'), 'utf8')),
    habits: habitNumbers(readFileSync(join(root, 'docs', 'architecture.md'), 'utf8')),
  };
}

// Between a file name and its section a citation may wrap onto the next comment line (`//`, `*`, `#`).
const GAP = String.raw`(?:[ \t]+|[ \t]*\r?\n[ \t]*(?:\/\/|\*|#)?[ \t]*)`;
const NUMBER = String.raw`\d+(?:\.\d+)?`;
const SECTION_LIST = String.raw`§{1,2}${NUMBER}(?:\s*(?:,|and|&|–|-)\s*§{0,2}${NUMBER})*`;
const DECISION_CITATION = new RegExp(String.raw`\bdecisions\.md${GAP}(${SECTION_LIST})`, 'g');
const HABIT_CITATION = new RegExp(String.raw`\barchitecture\.md${GAP}habits?[ \t]+(\d+(?:\s*(?:,|and|&|–|-)\s*\d+)*)`, 'g');

/**
 * "issue N", "Issue #N", "issues N" (N a number): on one line, or wrapped onto the next comment line (`//`, `*`, `#`
 * first), not onto a bare line, so a sentence that ends in "issue" before a numbered Markdown list item is not taken
 * for one.
 */
const ISSUE_NUMBER = /\bissues?(?:[ \t]+#?|[ \t]*#)[ \t]*\d+\b/gi;
const WRAPPED_ISSUE_NUMBER = /\bissues?[ \t]*\r?\n[ \t]*(?:\/\/|\*|#)[ \t]*#?\d+\b/gi;
const ISSUE_REFUSAL =
  'an issue number, of a tracker this repository does not hold: say the reason itself, or cite `docs/decisions.md §N`';

/** Citations that lead out of the repository, and what to write instead. */
const REFUSED: Array<[RegExp, string]> = [
  [/(?:\.\.\/)+shared\/|\/work\/shared\b/g, 'a path outside the repository: cite docs/decisions.md or docs/architecture.md'],
  [/\bDECISIONS(?:\.md\b|\s*§)/g, 'old-style citation: write `docs/decisions.md §N`'],
  [/\bARCHITECTURE(?:\.md\b|(?:\s|\/\/|\*|#)+habit)/g, 'old-style citation: write `docs/architecture.md habit N`'],
  [ISSUE_NUMBER, ISSUE_REFUSAL],
  [WRAPPED_ISSUE_NUMBER, ISSUE_REFUSAL],
];

/** "§4, §11" → ["4", "11"]; "§8–9" and "§§8–§9" → ["8", "9"]; "§7.2" → ["7.2"]. */
export function citedSections(list: string): string[] {
  const cited: string[] = [];
  const parts = [...list.matchAll(new RegExp(`(${NUMBER})|([–-])`, 'g'))];
  for (let i = 0; i < parts.length; i++) {
    const [, number, dash] = parts[i];
    if (number !== undefined) {
      cited.push(number);
      continue;
    }
    const from = Number(parts[i - 1]?.[1]);
    const to = Number(parts[i + 1]?.[1]);
    if (Number.isInteger(from) && Number.isInteger(to) && dash !== undefined) {
      for (let n = from + 1; n < to; n++) cited.push(String(n));
    }
  }
  return cited;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The broken citations of one text, with their line numbers. */
export function checkText(text: string, known: KnownSections): CitationProblem[] {
  const problems: CitationProblem[] = [];
  for (const match of text.matchAll(DECISION_CITATION)) {
    const missing = citedSections(match[1]).filter((section) => !known.decisions.has(section));
    for (const section of missing) {
      problems.push({ line: lineOf(text, match.index), message: `docs/decisions.md has no §${section}` });
    }
  }
  for (const match of text.matchAll(HABIT_CITATION)) {
    const missing = citedSections(match[1]).filter((habit) => !known.habits.has(habit));
    for (const habit of missing) {
      problems.push({ line: lineOf(text, match.index), message: `docs/architecture.md has no habit ${habit}` });
    }
  }
  for (const [pattern, message] of REFUSED) {
    for (const match of text.matchAll(pattern)) problems.push({ line: lineOf(text, match.index), message });
  }
  return problems.sort((a, b) => a.line - b.line);
}

/** Every file the check reads, relative to root. */
export function scannedFiles(root = projectRoot): string[] {
  const files: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const path = folder ? `${folder}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) walk(path);
      } else if (entry.isFile() && TEXT_FILE.test(entry.name) && !SKIPPED_FILES.has(entry.name) && !CITATION_EXAMPLE_FILES.has(path)) {
        files.push(path);
      }
    }
  };
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (entry.isFile() && TEXT_FILE.test(entry.name) && !SKIPPED_FILES.has(entry.name)) files.push(entry.name);
  }
  for (const folder of SCANNED_FOLDERS) if (statSync(join(root, folder), { throwIfNoEntry: false })?.isDirectory()) walk(folder);
  return files;
}

/** "file:line: message" for every broken citation in the repository. */
export function checkRepository(root = projectRoot): { files: number; problems: string[] } {
  const known = knownSections(root);
  const files = scannedFiles(root);
  const problems: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const problem of checkText(text, known)) problems.push(`${file}:${problem.line}: ${problem.message}`);
  }
  return { files: files.length, problems };
}

if (import.meta.main) {
  const { files, problems } = checkRepository();
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`\n${problems.length} broken citation(s) in ${files} files (old forms: node scripts/rewrite-citations.ts)`);
    process.exit(1);
  }
  console.log(`citations: every one leads to a section in docs/, none to an issue number (${files} files, relative to ${relative(process.cwd(), projectRoot) || '.'})`);
}
