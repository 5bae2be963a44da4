// Benchmark (not a test): the `builtin` analyser on the meeting corpus (test/fixtures/meetings, docs/decisions.md §9). Prints
// precision, recall and F1 of the action items per meeting and for the tuned and held-out sets, and whether each
// summary names the meeting's topics without small talk. Deterministic, no network, well under a second.
//
//   npx node bench/analyser-corpus.ts [--set tuned|held-out|all] [--details]
//
// --details also prints, per meeting, the items that matched nothing, the labelled items that were missed and the
// summary. Results: BENCHMARKS.md.
import { parseArgs } from 'node:util';
import { analyzeTranscript } from '../src/providers/ai-builtin.ts';
import { loadCorpus, requestOf, scoreMeeting, total, type CorpusScore, type MeetingScore } from '../test/helpers/analyser-scoring.ts';

const { values } = parseArgs({
  options: { set: { type: 'string', default: 'all' }, details: { type: 'boolean', default: false } },
});
const sets = values.set === 'all' ? ['tuned', 'held-out'] : [values.set];

const started = performance.now();
const scores: MeetingScore[] = loadCorpus()
  .filter((meeting) => sets.includes(meeting.set))
  .map((meeting) => scoreMeeting(meeting, analyzeTranscript(requestOf(meeting))));
const elapsedMs = performance.now() - started;

const pct = (value: number) => value.toFixed(2);
const row = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
console.log(row(['meeting', 'set', 'expected', 'extracted', 'correct', 'P', 'R', 'F1', 'summary topics', 'summary clean']));
console.log(row(Array(10).fill('---')));
for (const m of scores) {
  console.log(
    row([m.id, m.set, m.expected, m.extracted, m.correct, pct(m.precision), pct(m.recall), pct(m.f1), m.summaryTopics ? 'yes' : 'NO', m.summaryClean ? 'yes' : 'NO']),
  );
  if (values.details) {
    for (const item of m.falsePositives) console.log(`    extra: ${item}`);
    for (const item of m.misses) console.log(`    missed: ${item.owner ?? '(no owner)'}: ${item.keywords.join(', ')}`);
    console.log(`    summary: ${m.summary}`);
  }
}
console.log();
const line = (name: string, s: CorpusScore) =>
  console.log(
    `${name.padEnd(9)} meetings ${String(s.meetings.length).padStart(2)}  items expected ${s.expected}, extracted ${s.extracted}, ` +
      `correct ${s.correct}  precision ${pct(s.precision)}  recall ${pct(s.recall)}  F1 ${pct(s.f1)}  ` +
      `summaries passing ${s.summariesPassing}/${s.meetings.length}`,
  );
for (const set of sets) line(set, total(scores.filter((m) => m.set === set)));
if (sets.length > 1) line('all', total(scores));
console.log(`(${scores.length} meetings analysed in ${elapsedMs.toFixed(0)} ms)`);

// Speed on a long meeting: every corpus segment, repeated, one after the other (about an hour of speech at 150
// words a minute), as segments and as one unpunctuated text without segments (the worst case for clause splitting).
const corpus = loadCorpus();
const segments = Array.from({ length: 3 }, () => corpus.flatMap((meeting) => meeting.segments)).flat();
const words = segments.reduce((sum, segment) => sum + segment.text.split(/\s+/).length, 0);
const longInputs: Array<[string, Parameters<typeof analyzeTranscript>[0]]> = [
  ['segments', { text: segments.map((s) => s.text).join(' '), segments }],
  ['one unpunctuated text', { text: segments.map((s) => s.text.replace(/[.,!?;]/g, '').toLowerCase()).join(' '), segments: [] }],
];
for (const [label, input] of longInputs) {
  const start = performance.now();
  const result = analyzeTranscript(input);
  console.log(
    `long meeting (${segments.length} segments, ${words} words) as ${label}: ${(performance.now() - start).toFixed(0)} ms, ` +
      `${result.actionItems.length} items`,
  );
}
