// Benchmark (not a test): an analyser on the meeting corpora (test/fixtures/meetings, docs/decisions.md §9). Prints
// precision, recall and F1 of the action items per meeting and per set (tuned, held-out), with the owner compared and
// loose (the task alone), and whether each summary names the meeting's topics without small talk.
//
//   npx node bench/analyser-corpus.ts [--corpus written|spoken|all] [--set tuned|held-out|all] [--details]
//   npx node bench/analyser-corpus.ts --hear RENDERED_DIR --asr-url http://127.0.0.1:8765/v1
//
// Corpora: `written` is the 34 recogniser-style meetings typed as a recogniser writes (deterministic, well under a
// second); `spoken` is the meetings of test/fixtures/meetings/spoken/scripts as a real recogniser heard them (see
// test/fixtures/meetings/README.md). --details also prints, per meeting, the items that matched nothing, the labelled
// items that were missed and the summary. `--hear` (re)writes the spoken corpus: RENDERED_DIR is what
// `../shared/tools/real-asr.sh corpus test/fixtures/meetings/spoken/scripts RENDERED_DIR` rendered, and each WAV goes
// through this project's `openai` transcription provider to the recogniser at --asr-url. Results: BENCHMARKS.md.
import { createReadStream, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeTranscript } from '../src/providers/ai-builtin.ts';
import { OpenAiTranscriptionProvider } from '../src/providers/openai.ts';
import {
  loadCorpus,
  loadSpokenCorpus,
  requestOf,
  scoreMeeting,
  SPOKEN_DIR,
  total,
  type CorpusMeeting,
  type CorpusScore,
  type MeetingScore,
} from '../test/helpers/analyser-scoring.ts';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string', default: 'all' },
    set: { type: 'string', default: 'all' },
    details: { type: 'boolean', default: false },
    hear: { type: 'string' },
    'asr-url': { type: 'string', default: 'http://127.0.0.1:8765/v1' },
  },
});

if (values.hear !== undefined) {
  await hear(values.hear, values['asr-url']);
  process.exit(0);
}

const sets = values.set === 'all' ? ['tuned', 'held-out'] : [values.set];
const corpora: Array<[string, CorpusMeeting[]]> = [];
if (values.corpus !== 'spoken') corpora.push(['written', loadCorpus()]);
if (values.corpus !== 'written') corpora.push(['spoken', loadSpokenCorpus()]);

const pct = (value: number) => value.toFixed(2);
const row = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
for (const [name, corpus] of corpora) {
  const started = performance.now();
  const scores: MeetingScore[] = corpus
    .filter((meeting) => sets.includes(meeting.set))
    .map((meeting) => scoreMeeting(meeting, analyzeTranscript(requestOf(meeting))));
  const elapsedMs = performance.now() - started;
  console.log(`\n## ${name} corpus (${scores.length} meetings analysed in ${elapsedMs.toFixed(0)} ms)\n`);
  console.log(row(['meeting', 'set', 'expected', 'extracted', 'correct', 'correct loose', 'P', 'R', 'summary topics', 'summary clean']));
  console.log(row(Array(10).fill('---')));
  for (const m of scores) {
    console.log(
      row([m.id, m.set, m.expected, m.extracted, m.correct, m.correctLoose, pct(m.precision), pct(m.recall), m.summaryTopics ? 'yes' : 'NO', m.summaryClean ? 'yes' : 'NO']),
    );
    if (values.details) {
      for (const item of m.falsePositives) console.log(`    extra: ${item}`);
      for (const item of m.misses) console.log(`    missed: ${item.owner ?? '(no owner)'}: ${item.keywords.join(', ')}`);
      console.log(`    summary: ${m.summary}`);
    }
  }
  console.log();
  for (const set of sets) line(set, total(scores.filter((m) => m.set === set)));
  if (sets.length > 1) line('all', total(scores));
}

function line(name: string, s: CorpusScore): void {
  console.log(
    `${name.padEnd(9)} meetings ${String(s.meetings.length).padStart(2)}  items expected ${s.expected} (every keyword heard ${s.heard}, none heard ${s.lost}), ` +
      `extracted ${s.extracted}  with owner: correct ${s.correct} P ${pct(s.precision)} R ${pct(s.recall)}  ` +
      `loose: correct ${s.loose.correct} P ${pct(s.loose.precision)} R ${pct(s.loose.recall)}  ` +
      `summaries passing ${s.summariesPassing}/${s.meetings.length}`,
  );
}

if (values.corpus !== 'spoken') {
  // Speed on a long meeting: every written-corpus segment, repeated, one after the other (about an hour of speech at
  // 150 words a minute), as segments and as one unpunctuated text without segments (the worst case for clauses).
  const written = loadCorpus();
  const segments = Array.from({ length: 3 }, () => written.flatMap((meeting) => meeting.segments)).flat();
  const words = segments.reduce((sum, segment) => sum + segment.text.split(/\s+/).length, 0);
  const longInputs: Array<[string, Parameters<typeof analyzeTranscript>[0]]> = [
    ['segments', { text: segments.map((s) => s.text).join(' '), segments }],
    ['one unpunctuated text', { text: segments.map((s) => s.text.replace(/[.,!?;]/g, '').toLowerCase()).join(' '), segments: [] }],
  ];
  console.log();
  for (const [label, input] of longInputs) {
    const start = performance.now();
    const result = analyzeTranscript(input);
    console.log(
      `long meeting (${segments.length} segments, ${words} words) as ${label}: ${(performance.now() - start).toFixed(0)} ms, ` +
        `${result.actionItems.length} items`,
    );
  }
}
/**
 * `--hear DIR`: the spoken corpus's scripts, rendered to DIR by `real-asr.sh corpus`, each sent through the `openai`
 * transcription provider (this project's adapter, as post-meeting processing sends a recording) to the recogniser at
 * `--asr-url`; the recogniser's segments and the script's labels are written to test/fixtures/meetings/spoken/.
 */
async function hear(renderedDir: string, asrUrl: string): Promise<void> {
  const provider = new OpenAiTranscriptionProvider({
    baseUrl: asrUrl,
    apiKey: undefined,
    model: 'whisper-1',
    maxConcurrency: 1,
    maxUploadBytes: 25 * 1024 * 1024,
    timeoutMs: 600_000,
  });
  const scriptsDir = join(SPOKEN_DIR, 'scripts');
  for (const file of readdirSync(scriptsDir).filter((name) => name.endsWith('.json')).sort()) {
    const id = file.replace(/\.json$/, '');
    const script = JSON.parse(readFileSync(join(scriptsDir, file), 'utf8')) as SpokenScript;
    const wav = join(renderedDir, `${id}.wav`);
    const started = performance.now();
    const heard = await provider.transcribe({
      open: async (range) => createReadStream(wav, range ? { start: range.start, end: range.end - 1 } : {}),
      contentType: 'audio/wav',
      sizeBytes: statSync(wav).size,
      language: 'en',
      keywords: [],
      profanityFilter: false,
    });
    const meeting: CorpusMeeting = {
      id,
      domain: script.corpus.domain,
      set: script.corpus.set,
      diarized: new Set(heard.segments.map((s) => s.speaker)).size > 1,
      topics: script.corpus.topics,
      small_talk: [],
      segments: heard.segments.map((s) => ({ start: hundredths(s.start), end: hundredths(s.end), text: s.text.trim(), speaker: s.speaker })),
      action_items: script.items.map((item, i) => ({ owner: item.who, keywords: script.corpus.keywords[i] })),
      script: script.lines,
      distractors: script.distractors,
    };
    writeFileSync(join(SPOKEN_DIR, `${id}.json`), `${JSON.stringify(meeting, null, 1)}\n`);
    console.log(`${id}: ${heard.segments.length} segments in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}

function hundredths(seconds: number): number {
  return Math.round(seconds * 100) / 100;
}

interface SpokenScript {
  lines: Array<{ speaker: string; text: string }>;
  items: Array<{ who: string | null; keys: string[]; text: string }>;
  distractors: string[];
  corpus: { set: CorpusMeeting['set']; domain: string; keywords: string[][]; topics: string[][] };
}

