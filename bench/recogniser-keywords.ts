// Opt-in measurement (not a test; it needs the team's speech tool): what a transcription prompt does to a small
// self-hosted Whisper. A tenant's `transcription_keywords` reach the `openai` provider as the `prompt`
// (src/providers/openai.ts); the room's participants' names could go the same way, so that names are written as the
// room spells them. Each rendered meeting of the spoken corpus is sent twice through this project's adapter to the
// recogniser at --asr-url: without keywords, and with the script's speakers (the room's participants) as keywords.
// Prints, for each way, totals only: the names said in the script that the text writes as said, segments per script
// line, the words heard against the script's, the meetings that lost more than a fifth of their words, and the
// meetings whose voices were told apart (src/providers/voice-labels.ts).
//
//   real-asr.sh start            (the team's speech tool, outside this repository: test/fixtures/meetings/README.md)
//   npx node bench/recogniser-keywords.ts --rendered DIR [--set all|tuned|held-out] [--asr-url http://127.0.0.1:8765/v1]
//
// Results: BENCHMARKS.md ("A prompt for a small self-hosted Whisper").
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { OpenAiTranscriptionProvider } from '../src/providers/openai.ts';
import { withVoiceLabels } from '../src/providers/voice-labels.ts';
import { loadSpokenCorpus } from '../test/helpers/analyser-scoring.ts';

const { values: args } = parseArgs({
  options: {
    rendered: { type: 'string' },
    set: { type: 'string', default: 'all' },
    'asr-url': { type: 'string', default: 'http://127.0.0.1:8765/v1' },
  },
});
if (!args.rendered) throw new Error('--rendered DIR is required: the folder `real-asr.sh corpus` wrote the WAVs to');
const RENDERED = args.rendered;

/** What `real-asr.sh corpus` writes beside each WAV (the fields read here). */
interface RenderedScript {
  speakers: Record<string, string>;
  script: Array<{ speaker: string; text: string }>;
  items: Array<{ who: string | null }>;
}

interface Tally {
  namesSaid: number;
  namesHeard: number;
  lines: number;
  segments: number;
  wordsSaid: number;
  wordsHeard: number;
  meetingsLosingWords: number;
  meetingsWithVoices: number;
}

const words = (text: string) => text.split(/\s+/u).filter(Boolean).length;
const occurrences = (text: string, name: string) => text.match(new RegExp(`\\b${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'gu'))?.length ?? 0;

const provider = new OpenAiTranscriptionProvider({
  baseUrl: args['asr-url'],
  apiKey: undefined,
  model: 'whisper-1',
  maxConcurrency: 1,
  maxUploadBytes: 25 * 1024 * 1024,
  timeoutMs: 600_000,
});

const ways = { 'no keywords': (_: RenderedScript) => [] as string[], "participants' names as keywords": (s: RenderedScript) => Object.keys(s.speakers) };
const tallies = new Map<string, Tally>();
const meetings = loadSpokenCorpus().filter((m) => args.set === 'all' || m.set === args.set);
for (const meeting of meetings) {
  const script = JSON.parse(readFileSync(join(RENDERED, `${meeting.id}.json`), 'utf8')) as RenderedScript;
  const wav = join(RENDERED, `${meeting.id}.wav`);
  const said = script.script.map((line) => line.text).join(' ');
  // The names a listener would write: each speaker's last word ("Coach Dana" is called "Dana") and each owner's.
  const names = new Set([...Object.keys(script.speakers).map((name) => name.split(' ').at(-1)!), ...script.items.flatMap((item) => (item.who ? [item.who] : []))]);
  for (const [way, keywordsOf] of Object.entries(ways)) {
    const open = async (range?: { start: number; end: number }) => createReadStream(wav, range ? { start: range.start, end: range.end - 1 } : {});
    const transcribed = await provider.transcribe({ open, contentType: 'audio/wav', sizeBytes: statSync(wav).size, language: 'en', keywords: keywordsOf(script), profanityFilter: false });
    const { outcome } = await withVoiceLabels(transcribed, () => open());
    const heard = transcribed.segments.map((s) => s.text).join(' ');
    const tally = tallies.get(way) ?? { namesSaid: 0, namesHeard: 0, lines: 0, segments: 0, wordsSaid: 0, wordsHeard: 0, meetingsLosingWords: 0, meetingsWithVoices: 0 };
    for (const name of names) {
      tally.namesSaid += occurrences(said, name);
      tally.namesHeard += Math.min(occurrences(said, name), occurrences(heard, name));
    }
    tally.lines += script.script.length;
    tally.segments += transcribed.segments.length;
    tally.wordsSaid += words(said);
    tally.wordsHeard += words(heard);
    if (words(heard) < 0.8 * words(said)) tally.meetingsLosingWords++;
    if (outcome === 'labelled') tally.meetingsWithVoices++;
    tallies.set(way, tally);
  }
  console.error(`${meeting.id}: heard both ways`);
}

console.log(`\n## ${meetings.length} meetings (${args.set}), Whisper at ${args['asr-url']}\n`);
console.log('| | names written as said | segments / script lines | words heard / said | meetings losing > 20 % of words | meetings with voices told apart |');
console.log('|---|---|---|---|---|---|');
for (const [way, t] of tallies) {
  console.log(`| ${way} | ${t.namesHeard} of ${t.namesSaid} | ${t.segments} / ${t.lines} | ${t.wordsHeard} / ${t.wordsSaid} | ${t.meetingsLosingWords} | ${t.meetingsWithVoices} |`);
}
