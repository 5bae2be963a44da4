// The citation check of `npm test` (scripts/check-citations.ts) and the mechanical rewrite of old citations
// (scripts/rewrite-citations.ts), on small texts. This file shows the old forms and issue numbers on purpose, so both
// scripts skip it.
import { checkText, citedSections, decisionSections, habitNumbers, knownSections } from '../../scripts/check-citations.ts';
import { rewriteCitations } from '../../scripts/rewrite-citations.ts';

const known = { decisions: new Set(['1', '4', '7', '7.2', '8', '9', '11', '13']), habits: new Set(['1', '2', '7']) };
const messages = (text: string) => checkText(text, known).map(({ line, message }) => `${line}: ${message}`);

describe('checkText', () => {
  test('accepts citations of sections and habits that exist', () => {
    expect(
      messages(
        [
          '// Ids only in history (docs/decisions.md §13).',
          '/** Credentials (docs/decisions.md §4, §11); providers (docs/decisions.md §8–9); a sub-anchor: docs/decisions.md §7.2 */',
          '// One factory (docs/architecture.md habit 1); typed handlers (docs/architecture.md habits 2, 7).',
          'See docs/decisions.md for the reasons, and RFC 9110 §15.5.22 for the status.',
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  test('names the line of a citation whose section does not exist', () => {
    expect(messages('first line\n// the rule (docs/decisions.md §16)\n')).toEqual(['2: docs/decisions.md has no §16']);
    expect(messages('(docs/decisions.md §7.9)')).toEqual(['1: docs/decisions.md has no §7.9']);
    expect(messages('x\ny\n// see docs/architecture.md habit 12')).toEqual(['3: docs/architecture.md has no habit 12']);
  });

  test('checks every section of a list and of a run', () => {
    expect(messages('(docs/decisions.md §4, §12)')).toEqual(['1: docs/decisions.md has no §12']);
    expect(messages('(docs/decisions.md §7–9) and (docs/decisions.md §9-§11)')).toEqual(['1: docs/decisions.md has no §10']);
  });

  test('follows a citation that wraps onto the next comment line', () => {
    expect(messages('// the last words of a long comment, docs/decisions.md\n// §14, and more')).toEqual([
      '1: docs/decisions.md has no §14',
    ]);
  });

  test('refuses the old forms, which lead outside the repository', () => {
    expect(messages('// ids (DECISIONS §13)')).toEqual(['1: old-style citation: write `docs/decisions.md §N`']);
    expect(messages('a\n(ARCHITECTURE habit 1)')).toEqual(['2: old-style citation: write `docs/architecture.md habit N`']);
    expect(messages('see DECISIONS.md')).toEqual(['1: old-style citation: write `docs/decisions.md §N`']);
    expect(messages('[why](../shared/spec/room-session-service.md)')).toEqual([
      '1: a path outside the repository: cite docs/decisions.md or docs/architecture.md',
    ]);
  });

  test('leaves the word alone, when it is not a citation', () => {
    expect(messages('const DECISIONS = 1; // ARCHITECTURE overview')).toEqual([]);
  });
});

describe('issue numbers', () => {
  const refusal = 'an issue number, of a tracker this repository does not hold: say the reason itself, or cite `docs/decisions.md §N`';

  test('refuses a comment or a doc line that cites an issue number', () => {
    expect(messages('// see issue 12')).toEqual([`1: ${refusal}`]);
    expect(messages('x\n/** Retried (Issue #12). */')).toEqual([`2: ${refusal}`]);
    expect(messages('### Issue 13: idle memory')).toEqual([`1: ${refusal}`]);
    expect(messages('(issues 8 and 9)')).toEqual([`1: ${refusal}`]);
    expect(messages('# 302: GET / redirects to /docs (issue#15)')).toEqual([`1: ${refusal}`]);
  });

  test('refuses one wrapped onto the next comment line', () => {
    expect(messages('// the reason is in issue\n// 19, outcome 5')).toEqual([`1: ${refusal}`]);
    expect(messages(' * as decided in issue\n * #7')).toEqual([`1: ${refusal}`]);
  });

  test('accepts the decision cited instead, and the word without a number', () => {
    const withTwelve = { decisions: new Set(['12']), habits: new Set<string>() };
    expect(checkText('// see docs/decisions.md §12', withTwelve)).toEqual([]);
    expect(
      messages(
        [
          'const issues: ErrorDetail[] = []; issues.push(detail);',
          '// Issue Token answers 201; the main issue is the elevator.',
          '// A known bug upstream: https://github.com/temporalio/sdk-typescript/issues/1234',
          'The list below settles each issue',
          '2. **Second item**',
        ].join('\n'),
      ),
    ).toEqual([]);
  });
});

describe('sections', () => {
  test('runs and lists expand to every section they name', () => {
    expect(citedSections('§4, §11')).toEqual(['4', '11']);
    expect(citedSections('§7–9')).toEqual(['7', '8', '9']);
    expect(citedSections('§§7–9')).toEqual(['7', '8', '9']);
    expect(citedSections('§8-§9')).toEqual(['8', '9']);
    expect(citedSections('§7.2')).toEqual(['7.2']);
  });

  test('are read from the headings of the decisions and the habits of the architecture document', () => {
    expect([...decisionSections('# Title\n## 1. How it runs\ntext\n## 2. Ids\n### 2.1 Names\n| 3 | not a heading |\n')]).toEqual([
      '1',
      '2',
      '2.1',
    ]);
    const architecture = '## A way\n1. **not a habit** here\n## Habits\n\n1. **One**: x\n   text\n2. **Two**\n## Later\n3. **no**\n';
    expect([...habitNumbers(architecture)]).toEqual(['1', '2']);
  });

  test("the repository's own documents have §1–§15 and the habits code cites", () => {
    const repository = knownSections();
    for (let n = 1; n <= 15; n++) expect(repository.decisions).toContain(String(n));
    for (const habit of ['1', '2', '7']) expect(repository.habits).toContain(habit);
  });
});

describe('rewriteCitations', () => {
  test.each([
    ['// ids per DECISIONS §13.', '// ids per docs/decisions.md §13.'],
    ['(DECISIONS §13)', '(docs/decisions.md §13)'],
    ['(DECISIONS §7, §9)', '(docs/decisions.md §7, §9)'],
    ['(DECISIONS §4–5)', '(docs/decisions.md §4–5)'],
    ['(DECISIONS §8-§9)', '(docs/decisions.md §8–9)'],
    ['(DECISIONS §§7–9)', '(docs/decisions.md §7–9)'],
    ["DECISIONS §13's rule", "docs/decisions.md §13's rule"],
    ['(ARCHITECTURE habit 1; ids per DECISIONS §13)', '(docs/architecture.md habit 1; ids per docs/decisions.md §13)'],
    ['// a long comment (ARCHITECTURE\n// habit 1)', '// a long comment (docs/architecture.md\n// habit 1)'],
    ['// a long comment, DECISIONS\n// §7, goes on', '// a long comment, docs/decisions.md\n// §7, goes on'],
    ['see ../shared/DECISIONS.md and /work/shared/ARCHITECTURE.md', 'see docs/decisions.md and docs/architecture.md'],
    ['const DECISIONS = 1; // ARCHITECTURE overview', 'const DECISIONS = 1; // ARCHITECTURE overview'],
    ['(docs/decisions.md §7) stays', '(docs/decisions.md §7) stays'],
  ])('%j', (before, after) => {
    expect(rewriteCitations(before)).toBe(after);
    expect(rewriteCitations(after)).toBe(after);
  });

  test('its output passes the check', () => {
    const old = '// (DECISIONS §7, §9), (DECISIONS §§7–9), (DECISIONS §8-§9), (ARCHITECTURE habit 7)';
    expect(messages(old)).not.toEqual([]);
    expect(messages(rewriteCitations(old))).toEqual([]);
  });
});
