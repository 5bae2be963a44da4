// Where one voice hands over to another inside a recogniser's segment (docs/decisions.md §9, "Speakers told apart by
// voice"). A recogniser without speakers cuts its segments by its own clock, not at turns: a small Whisper often runs
// the end of one person's sentence and the start of the next person's reply into one segment ("… slammed by it? No
// question. Specials are already done, Marco …"), so a label per segment gives half of it to the wrong person. People
// leave a pause between turns, and the recording shows it: a segment is cut at its pauses into pieces, each piece is
// given a voice by its pitch (voice-labels.ts), and where the voice changes at a pause the segment becomes two, its
// words shared out by how long each side speaks and the cut moved to the nearest sentence end.
import { HOP_SECONDS, type SegmentFrames } from './segment-pitches.ts';
import type { TranscriptSegmentOut } from './types.ts';

/**
 * A pause inside a segment at least this long may be a turn's end. Turns in the spoken corpus leave 0.5 s or more;
 * shorter pauses (a comma's) cut one person's sentence into pieces too short to carry a steady pitch (measured there:
 * at 0.3 s fewer words reached the right voice than at 0.45 s, BENCHMARKS.md).
 */
const MIN_PAUSE_SECONDS = 0.45;
/** Each side of a cut holds at least this much speech: a shorter piece is too short to place a voice. */
const MIN_PIECE_SPEECH_SECONDS = 0.6;
/** A frame this far below the segment's loud frames is pause (a recording's floor is rarely digital silence). */
const PAUSE_BELOW_DB = 35;
/** How many words from the cut a sentence's end may lie and still be where the cut goes. */
const SNAP_WORDS = 3;

/** A stretch of a segment between pauses: its frames `from` to `to` (exclusive) and how many of them are speech. */
export interface Piece {
  frames: SegmentFrames;
  from: number;
  to: number;
  speech: number;
}

/** Each segment's pieces, in order: the segment cut at every pause with enough speech on both sides. */
export function piecesOf(segmentFrames: readonly SegmentFrames[]): Piece[][] {
  return segmentFrames.map((frames) => {
    const loud = percentile(frames.levels, 0.9);
    const quiet = (i: number) => frames.levels[i]! <= loud * 10 ** (-PAUSE_BELOW_DB / 20);
    const pauseFrames = Math.round(MIN_PAUSE_SECONDS / HOP_SECONDS);
    const pieces: Piece[] = [];
    let from = 0;
    let run = 0;
    let speech = 0;
    for (let i = 0; i < frames.levels.length; i++) {
      if (quiet(i)) run++;
      else {
        run = 0;
        speech++;
      }
      if (run === pauseFrames) {
        pieces.push({ frames, from, to: i + 1, speech });
        from = i + 1;
        speech = 0;
      }
    }
    pieces.push({ frames, from, to: frames.levels.length, speech });
    // A piece with too little speech joins the one before it (the first, the one after).
    const minSpeech = MIN_PIECE_SPEECH_SECONDS / HOP_SECONDS;
    const kept: Piece[] = [];
    for (const piece of pieces) {
      const last = kept.at(-1);
      if (last && (piece.speech < minSpeech || last.speech < minSpeech)) {
        last.to = piece.to;
        last.speech += piece.speech;
      } else kept.push(piece);
    }
    return kept;
  });
}

/**
 * The segment as its voices say it: one segment per run of pieces with one voice, the words shared out by each run's
 * speech and the cut moved to the nearest sentence end (or comma) within SNAP_WORDS words; the segment whole under
 * the voice that speaks most of it when it has fewer words than runs.
 */
export function splitByVoice(segment: TranscriptSegmentOut, pieces: readonly Piece[], voices: readonly number[]): Array<TranscriptSegmentOut & { voice: number }> {
  const runs: Array<{ voice: number; from: number; to: number; speech: number }> = [];
  pieces.forEach((piece, i) => {
    const last = runs.at(-1);
    if (last && last.voice === voices[i]) {
      last.to = piece.to;
      last.speech += piece.speech;
    } else runs.push({ voice: voices[i]!, from: piece.from, to: piece.to, speech: piece.speech });
  });
  const words = segment.text.trim().split(/\s+/).filter(Boolean);
  if (runs.length <= 1 || words.length < runs.length) {
    const most = runs.reduce((best, run) => (run.speech > best.speech ? run : best), runs[0] ?? { voice: 0, speech: 0 });
    return [{ ...segment, voice: most.voice }];
  }
  const total = runs.reduce((sum, run) => sum + run.speech, 0);
  const cuts: number[] = [];
  let before = 0;
  for (let i = 0; i < runs.length - 1; i++) {
    before += runs[i]!.speech;
    const low = (cuts.at(-1) ?? 0) + 1;
    const high = words.length - (runs.length - 1 - i);
    const at = Math.round((words.length * before) / Math.max(1, total));
    cuts.push(snap(words, Math.min(high, Math.max(low, at)), low, high));
  }
  const bounds = [0, ...cuts, words.length];
  const frames = pieces[0]!.frames;
  const handovers = runs.slice(1).map((run, i) => handover(frames, runs[i]!, run));
  return runs.map((run, i) => ({
    ...segment,
    start: i === 0 ? segment.start : handovers[i - 1]!,
    end: i === runs.length - 1 ? segment.end : handovers[i]!,
    text: words.slice(bounds[i], bounds[i + 1]).join(' '),
    voice: run.voice,
  }));
}

/** The middle of the pause between one run's last voiced frame and the next run's first (seconds, to the millisecond). */
function handover(frames: SegmentFrames, before: { from: number; to: number }, after: { from: number; to: number }): number {
  const voiced = (i: number) => !Number.isNaN(frames.pitches[i]!);
  let last = before.to - 1;
  while (last > before.from && !voiced(last)) last--;
  let next = after.from;
  while (next < after.to - 1 && !voiced(next)) next++;
  return Math.round(((frames.times[last]! + frames.times[next]!) / 2) * 1000) / 1000;
}

/** The cut nearest `at` that follows a sentence's end, else a comma, else `at`; between `low` and `high`. */
function snap(words: readonly string[], at: number, low: number, high: number): number {
  for (const [ending, reach] of [[/[.?!]["')]?$/, SNAP_WORDS], [/[,;:]$/, SNAP_WORDS - 1]] as const) {
    for (let distance = 0; distance <= reach; distance++) {
      for (const cut of [at - distance, at + distance]) {
        if (cut >= low && cut <= high && ending.test(words[cut - 1]!)) return cut;
      }
    }
  }
  return at;
}

function percentile(values: readonly number[], share: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;
}
