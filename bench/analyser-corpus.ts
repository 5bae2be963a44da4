// Benchmark (not a test): an analyser on the meeting corpora (test/fixtures/meetings, docs/decisions.md §9). Prints
// precision, recall and F1 of the action items per meeting and per set (tuned, held-out), with the owner compared and
// loose (the task alone), and whether each summary names the meeting's topics without small talk.
//
//   npx node bench/analyser-corpus.ts [--corpus written|spoken|all] [--set tuned|held-out|unseen|all] [--only r01,r4] [--details | --totals]
//   npx node bench/analyser-corpus.ts --hear RENDERED_DIR --asr-url http://127.0.0.1:8765/v1 [--again]
//   npx node bench/analyser-corpus.ts --corpus spoken --set held-out --analyser openai-compatible --ai-url http://127.0.0.1:8766/v1
//   npx node bench/analyser-corpus.ts --long [--analyser …]     the 45-minute meeting (below)
//   … --analyser openai-compatible --ai-cache .bench-cache/llm   the model's answers kept by request (below)
//   npx node bench/analyser-corpus.ts --relabel RENDERED_DIR [--save]   voices told apart again by this code (below)
//
// Corpora: `written` is the 34 recogniser-style meetings typed as a recogniser writes (deterministic, well under a
// second); `spoken` is the meetings of test/fixtures/meetings/spoken/scripts as a real recogniser heard them (see
// test/fixtures/meetings/README.md). --details also prints, per meeting, the items that matched nothing, the labelled
// items that were missed (with why, test/helpers/analyser-scoring.ts missReason) and the summary; `--totals` prints
// only each set's totals and its misses counted by why (for a held-out half, whose meetings are not read one by one).
// `--hear` writes the spoken corpus's meetings not heard yet (all of them with `--again`): RENDERED_DIR is what
// `real-asr.sh corpus test/fixtures/meetings/spoken/scripts RENDERED_DIR` (the team's speech tool, outside this
// repository; test/fixtures/meetings/README.md) rendered, and each WAV goes through this project's `openai`
// transcription provider to the recogniser at --asr-url. `--analyser
// openai-compatible` sends each meeting to the LLM server at --ai-url (one at a time; a 1.5 B model on CPU takes a
// minute or more a meeting). `--long`: the spoken corpus's held-out meetings one after the other, repeated to about 45
// minutes, as one meeting: each distinct commitment must come back once (a repeat counts against precision).
// `--participants`: the analyser is also given the room's participants (the script's speakers), as post-meeting
// processing could. `--hear` labels the segments by voice as the transcription step does (src/providers/voice-labels.ts);
// `--no-voices` scores them as the recogniser gave them, every segment `speaker_0`; `--voices RENDERED_DIR` measures
// how well the voices are told apart, against the script (by segment, and word by word). `--as-written`: the spoken meetings' scripts themselves as the
// transcript, one segment a line, speakers told apart perfectly (`speaker_N`, never names): what the analyser does
// with no recogniser in the way, so that a miss can be put down to the recogniser or to the analyser. Results:
// BENCHMARKS.md.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeTranscript } from '../src/providers/ai-builtin.ts';
import { OpenAiCompatibleAnalyzer } from '../src/providers/ai-openai-compatible.ts';
import { OpenAiTranscriptionProvider } from '../src/providers/openai.ts';
import { labelByVoice, withVoiceLabels } from '../src/providers/voice-labels.ts';
import type { MeetingInsights } from '../src/providers/types.ts';
import {
  findableItems,
  loadCorpus,
  loadSpokenCorpus,
  requestOf,
  scriptAsTranscript,
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
    only: { type: 'string' },
    details: { type: 'boolean', default: false },
    totals: { type: 'boolean', default: false },
    hear: { type: 'string' },
    voices: { type: 'string' },
    'asr-url': { type: 'string', default: 'http://127.0.0.1:8765/v1' },
    analyser: { type: 'string', default: 'builtin' },
    'ai-url': { type: 'string', default: 'http://127.0.0.1:8766/v1' },
    long: { type: 'boolean', default: false },
    participants: { type: 'boolean', default: false },
    'no-voices': { type: 'boolean', default: false },
    'as-written': { type: 'boolean', default: false },
    again: { type: 'boolean', default: false },
    'ai-cache': { type: 'string' },
    relabel: { type: 'string' },
    save: { type: 'boolean', default: false },
  },
});

/** One request to the model's server with no time limit of its own (fetch gives up on headers after 300 s). */
function forward(url: string, method: string, body: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 502, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * `--ai-cache DIR`: the LLM's answers kept in DIR by request (its body's SHA-256), so a change to what is done with
 * them (checks, merging) is measured again in seconds instead of an hour of CPU; the same request is never sent twice.
 */
async function cachingProxy(target: string, dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const file = join(dir, `${createHash('sha256').update(req.url ?? '').update(body).digest('hex')}.json`);
      const cached = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { status: number; body: string }) : undefined;
      const answer = cached
        ? Promise.resolve(cached)
        : forward(`${target}${(req.url ?? '').replace(/^\/v1/, '')}`, req.method ?? 'POST', body).then((fresh) => {
            if (fresh.status === 200) writeFileSync(file, JSON.stringify(fresh));
            return fresh;
          });
      answer.then(
        ({ status, body: text }) => res.writeHead(status, { 'content-type': 'application/json' }).end(text),
        (err: unknown) => res.writeHead(502).end(String(err)),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  server.requestTimeout = 0; // a part of a long meeting takes the model minutes
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const llm =
  values.analyser === 'openai-compatible'
    ? new OpenAiCompatibleAnalyzer({
        defaultProvider: 'openai-compatible',
        baseUrl: values['ai-cache'] ? await cachingProxy(values['ai-url'], values['ai-cache']) : values['ai-url'],
        apiKey: undefined,
        model: 'local/qwen2.5-coder-1.5b-instruct',
        timeoutMs: 600_000,
        timeoutPer1kTokensMs: 120_000,
        contextTokens: 8192,
      })
    : undefined;

/** The chosen analyser on one meeting. */
async function analyse(meeting: CorpusMeeting): Promise<MeetingInsights> {
  const request = requestOf(meeting, { participants: values.participants, voices: !values['no-voices'] });
  if (!llm) return analyzeTranscript(request);
  const started = performance.now();
  const insights = await llm.analyze(request);
  console.error(`${meeting.id}: ${((performance.now() - started) / 1000).toFixed(0)} s, ${insights.actionItems.length} items`);
  return insights;
}

if (values.long) {
  await longMeeting();
  process.exit(0);
}

if (values.hear !== undefined) {
  await hear(values.hear, values['asr-url']);
  process.exit(0);
}

if (values.voices !== undefined) {
  await voices(values.voices);
  process.exit(0);
}

const sets = values.set === 'all' ? ['tuned', 'held-out', 'unseen'] : [values.set];
const corpora: Array<[string, CorpusMeeting[]]> = [];
if (values.corpus !== 'spoken') corpora.push(['written', loadCorpus()]);
if (values.corpus !== 'written') {
  const spoken = values.relabel === undefined ? loadSpokenCorpus() : await relabelled(loadSpokenCorpus(), values.relabel);
  corpora.push(['spoken', values['as-written'] ? spoken.map(scriptAsTranscript) : spoken]);
}


const row = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
for (const [name, corpus] of corpora) {
  const started = performance.now();
  const scores: MeetingScore[] = [];
  const only = values.only?.split(',');
  const chosen = corpus.filter((m) => sets.includes(m.set) && (!only || only.some((prefix) => m.id.startsWith(prefix))));
  for (const meeting of chosen) scores.push(scoreMeeting(meeting, await analyse(meeting)));
  const elapsedMs = performance.now() - started;
  console.log(`\n## ${name} corpus, ${values.analyser} (${scores.length} meetings analysed in ${elapsedMs.toFixed(0)} ms)\n`);
  if (!values.totals) console.log(row(['meeting', 'set', 'expected', 'extracted', 'correct', 'correct loose', 'P', 'R', 'summary topics', 'summary clean']));
  if (!values.totals) console.log(row(Array(10).fill('---')));
  for (const m of values.totals ? [] : scores) {
    console.log(
      row([m.id, m.set, m.expected, m.extracted, m.correct, m.correctLoose, pct(m.precision), pct(m.recall), m.summaryTopics ? 'yes' : 'NO', m.summaryClean ? 'yes' : 'NO']),
    );
    if (values.details) {
      for (const item of m.falsePositives) console.log(`    extra${m.looseFalsePositives.includes(item) ? '' : ' (right task, wrong owner)'}: ${item}`);
      m.misses.forEach((item, i) => console.log(`    missed (${m.missReasons[i]}): ${item.owner ?? '(no owner)'}: ${item.keywords.join(', ')}`));
      console.log(`    summary: ${m.summary}`);
    }
  }
  console.log();
  // The sets this corpus has (the written corpus has no `unseen` meetings).
  const present = sets.filter((set) => scores.some((m) => m.set === set));
  for (const set of present) line(set, total(scores.filter((m) => m.set === set)));
  if (present.length > 1) line('all', total(scores));
  for (const set of present) missesByReason(set, scores.filter((m) => m.set === set));
}

/** A set's missed items (with the owner compared) counted by why they were missed. */
function missesByReason(set: string, scores: MeetingScore[]): void {
  const counts = new Map<string, number>();
  for (const reason of scores.flatMap((m) => m.missReasons)) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const parts = [...counts].sort((a, b) => b[1] - a[1]).map(([reason, count]) => `${reason} ${count}`);
  console.log(`${set.padEnd(9)} missed with owner, by why: ${parts.join(', ') || 'none'}`);
}

function pct(value: number): string {
  return value.toFixed(2);
}

function line(name: string, s: CorpusScore): void {
  console.log(
    `${name.padEnd(9)} meetings ${String(s.meetings.length).padStart(2)}  items expected ${s.expected} (every keyword heard ${s.heard}, none heard ${s.lost}), ` +
      `extracted ${s.extracted}  with owner: correct ${s.correct} P ${pct(s.precision)} R ${pct(s.recall)}  ` +
      `loose: correct ${s.loose.correct} P ${pct(s.loose.precision)} R ${pct(s.loose.recall)}  ` +
      `summaries passing ${s.summariesPassing}/${s.meetings.length}`,
  );
}

if (values.corpus !== 'spoken' && !llm) {
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
 * `--long`: the held-out spoken meetings one after the other, repeated until about 45 minutes, as one meeting (times
 * shifted). Expected: each distinct commitment once; an item matching none, or one already matched, is a false positive.
 */
async function longMeeting(): Promise<void> {
  const held = loadSpokenCorpus().filter((m) => m.set === 'held-out');
  const segments: CorpusMeeting['segments'] = [];
  let offset = 0;
  while (offset < 45 * 60) {
    for (const meeting of held) {
      if (offset >= 45 * 60) break;
      const length = meeting.segments.at(-1)?.end ?? 0;
      segments.push(...meeting.segments.map((s) => ({ ...s, start: s.start + offset, end: s.end + offset })));
      offset += length + 2;
    }
  }
  const meeting: CorpusMeeting = {
    id: 'long-45-min',
    domain: 'mixed',
    set: 'held-out',
    diarized: false,
    topics: [],
    small_talk: [],
    segments,
    action_items: held.flatMap((m) => findableItems(m)),
    script: [],
  };
  const words = segments.reduce((sum, s) => sum + s.text.split(/\s+/).length, 0);
  const started = performance.now();
  const insights = await analyse(meeting);
  const score = scoreMeeting(meeting, insights);
  const repeats = insights.actionItems.length - new Set(insights.actionItems.map((i) => i.toLowerCase())).size;
  console.log(
    `45-minute meeting (${(offset / 60).toFixed(1)} min, ${segments.length} segments, ${words} words) through ${values.analyser} ` +
      `in ${((performance.now() - started) / 1000).toFixed(1)} s: ${insights.actionItems.length} items (${repeats} written twice) for ` +
      `${score.expected} distinct commitments; loose: correct ${score.correctLoose}, P ${pct(score.correctLoose / Math.max(1, score.extracted))}, ` +
      `R ${pct(score.correctLoose / score.expected)}; with owner: P ${pct(score.precision)} R ${pct(score.recall)}`,
  );
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
    // The recogniser's text differs a little from run to run: a meeting heard once keeps its text unless --again.
    if (existsSync(join(SPOKEN_DIR, `${id}.json`)) && !values.again) continue;
    const script = JSON.parse(readFileSync(join(scriptsDir, file), 'utf8')) as SpokenScript;
    const wav = join(renderedDir, `${id}.wav`);
    const started = performance.now();
    const open = async (range?: { start: number; end: number }) => createReadStream(wav, range ? { start: range.start, end: range.end - 1 } : {});
    const transcribed = await provider.transcribe({
      open,
      contentType: 'audio/wav',
      sizeBytes: statSync(wav).size,
      language: 'en',
      keywords: [],
      profanityFilter: false,
    });
    // As post-meeting processing stores it: speakers told apart by voice when the recogniser labels none.
    const { result: heard } = await withVoiceLabels(transcribed, () => open());
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
    console.log(`${id}: ${heard.segments.length} segments, ${new Set(heard.segments.map((s) => s.speaker)).size} voices, in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}

/**
 * `--voices DIR`: how well the voices are told apart on the spoken corpus's segments (src/providers/voice-labels.ts),
 * against who says what in the script as rendered to DIR (`real-asr.sh corpus` writes each line's start and end): the
 * meetings where the number of voices found is the number of speakers, the segments whose voice is the one most of
 * their group's segments are by (each segment counted as the speaker it overlaps most), and the CPU time per second
 * of audio.
 */
async function voices(renderedDir: string): Promise<void> {
  let rightCount = 0;
  let pure = 0;
  let segments = 0;
  let wordsRight = 0;
  let wordsAligned = 0;
  let readMs = 0;
  let audioSeconds = 0;
  // The meetings rendered to the directory (a new batch may be rendered on its own).
  const meetings = loadSpokenCorpus().filter(
    (meeting) => existsSync(join(renderedDir, `${meeting.id}.wav`)) && (values.set === 'all' || meeting.set === values.set),
  );
  for (const meeting of meetings) {
    const rendered = JSON.parse(readFileSync(join(renderedDir, `${meeting.id}.json`), 'utf8')) as {
      duration_s: number;
      script: Array<{ speaker: string; start: number; end: number }>;
    };
    const started = performance.now();
    // As the transcription step labels them: segments cut where the voice changes at a pause (voice-turns.ts).
    const unlabelled = meeting.segments.map((segment) => ({ ...segment, speaker: 'speaker_0' }));
    const labelledSegments = (await labelByVoice(createReadStream(join(renderedDir, `${meeting.id}.wav`)), unlabelled)) ?? unlabelled;
    readMs += performance.now() - started;
    audioSeconds += rendered.duration_s;
    const found = labelledSegments.map((segment) => Number(segment.speaker.replace('speaker_', '')));
    const speakerOf = labelledSegments.map((segment) => {
      const overlap = (line: { start: number; end: number }) => Math.min(line.end, segment.end) - Math.max(line.start, segment.start);
      return rendered.script.reduce((best, line) => (overlap(line) > overlap(best) ? line : best)).speaker;
    });
    const speakers = new Set(rendered.script.map((line) => line.speaker)).size;
    if (new Set(found).size === speakers) rightCount++;
    for (const voice of new Set(found)) {
      const counts = new Map<string, number>();
      speakerOf.forEach((speaker, i) => found[i] === voice && counts.set(speaker, (counts.get(speaker) ?? 0) + 1));
      pure += Math.max(...counts.values());
    }
    segments += labelledSegments.length;
    const byWord = wordsInTheirVoice(meeting.script ?? [], labelledSegments);
    wordsRight += byWord.right;
    wordsAligned += byWord.aligned;
    console.log(`${meeting.id}: ${new Set(found).size} voices for ${speakers} speakers`);
  }
  console.log(
    `voices: the right number in ${rightCount} of ${meetings.length} meetings; ${pure} of ${segments} segments in the group of their ` +
      `own speaker; ${wordsRight} of ${wordsAligned} words heard as said (${pct(wordsRight / Math.max(1, wordsAligned))}) under the label ` +
      `most of their speaker's words are under; reading the pitch ${(readMs / audioSeconds).toFixed(1)} ms per second of audio`,
  );
}

/**
 * Word by word, whose voice a label holds: the heard words aligned to the script's (the longest common subsequence of
 * the two, in lower case), each aligned word's label against the speaker who said it; a label counts as the speaker
 * most of its aligned words belong to. Segment times cannot say this: a recogniser's times drift by a second.
 */
function wordsInTheirVoice(script: ReadonlyArray<{ speaker: string; text: string }>, heard: ReadonlyArray<{ speaker: string; text: string }>): { right: number; aligned: number } {
  const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  const said = script.flatMap((line) => wordsOf(line.text).map((word) => ({ word, who: line.speaker })));
  const got = heard.flatMap((segment) => wordsOf(segment.text).map((word) => ({ word, who: segment.speaker })));
  // lcs[i][j]: the longest common subsequence of said[i..] and got[j..].
  const lcs = Array.from({ length: said.length + 1 }, () => new Uint16Array(got.length + 1));
  for (let i = said.length - 1; i >= 0; i--) {
    for (let j = got.length - 1; j >= 0; j--) {
      lcs[i]![j] = said[i]!.word === got[j]!.word ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const tally = new Map<string, Map<string, number>>();
  for (let i = 0, j = 0; i < said.length && j < got.length; ) {
    if (said[i]!.word === got[j]!.word) {
      const counts = tally.get(got[j]!.who) ?? new Map<string, number>();
      counts.set(said[i]!.who, (counts.get(said[i]!.who) ?? 0) + 1);
      tally.set(got[j]!.who, counts);
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) i++;
    else j++;
  }
  let right = 0;
  let aligned = 0;
  for (const counts of tally.values()) {
    right += Math.max(...counts.values());
    for (const count of counts.values()) aligned += count;
  }
  return { right, aligned };
}

/**
 * `--relabel DIR`: each spoken meeting's heard segments told apart by voice again, by this checkout's code, from the
 * WAV that `real-asr.sh corpus` rendered to DIR, as the transcription step would store them now; the recogniser's text
 * is the one kept in the fixture. A meeting without a WAV in DIR keeps its stored labels. `--save` writes them to the
 * fixtures (test/fixtures/meetings/spoken/), after a change to how voices are told apart.
 */
async function relabelled(meetings: CorpusMeeting[], renderedDir: string): Promise<CorpusMeeting[]> {
  return Promise.all(
    meetings.map(async (meeting) => {
      const wav = join(renderedDir, `${meeting.id}.wav`);
      if (!existsSync(wav)) return meeting;
      const unlabelled = { language: 'en', segments: meeting.segments.map((segment) => ({ ...segment, speaker: 'speaker_0' })) };
      const { result } = await withVoiceLabels(unlabelled, async () => createReadStream(wav));
      const segments = result.segments.map((s) => ({ start: hundredths(s.start), end: hundredths(s.end), text: s.text, speaker: s.speaker }));
      const again = { ...meeting, diarized: new Set(segments.map((s) => s.speaker)).size > 1, segments };
      if (values.save) writeFileSync(join(SPOKEN_DIR, `${meeting.id}.json`), `${JSON.stringify(again, null, 1)}\n`);
      return again;
    }),
  );
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

