// Speakers told apart by voice when the transcription provider labels none (docs/decisions.md §9, "Speakers told apart
// by voice"): a self-hosted Whisper server answers `verbose_json` with no speakers, which leaves every segment
// `speaker_0` and every "I'll …" without an owner. The recording is read once more from the store, each segment's
// voice measured (src/providers/segment-pitches.ts) and cut at its pauses (voice-turns.ts: a small Whisper runs one
// person's sentence end and the next person's reply into one segment), and the pieces grouped by pitch; a segment
// whose pieces have two voices becomes two segments.
//
// Why pitch alone: a segment's median pitch is steady for one speaker (within 2 semitones for 95 % of pairs of a
// speaker's segments, measured on the spoken corpus, BENCHMARKS.md) while the cepstrum of a segment of a few seconds
// depends as much on what is said as on who says it (adding 12 cepstral coefficients made the grouping worse there). Pitch separates voices
// about three semitones or more apart (most pairs of a man and a woman) and not two voices of one range, which stay
// one label: the grouping splits only at a clear gap, and the analyser names a label only when its clues agree.
import type { Readable } from 'node:stream';
import type { VoiceLabelOutcome } from '../metrics/metrics.ts';
import type { TranscriptionResult, TranscriptSegmentOut } from './types.ts';
import { readSegmentFrames, voicedPitches } from './segment-pitches.ts';
import { piecesOf, splitByVoice } from './voice-turns.ts';

/**
 * Two groups of segment pitches are two voices when their means lie this many pooled standard deviations apart
 * (a voice's segments vary by about half a semitone, two voices of a meeting by three or more: BENCHMARKS.md).
 */
const MIN_SEPARATION = 4;
/**
 * ... and at least this many semitones apart: one synthetic speaker's segments spread up to 2.3 semitones between
 * groups, the closest two voices of the spoken corpus (a low female voice and a male one) lie 3.1 apart.
 */
const MIN_DISTANCE_SEMITONES = 2.75;
/** A piece with fewer voiced frames (20 ms each) is too short to place a voice; it follows the voice before it. */
const RELIABLE_FRAMES = 20;
/** A voice is a group of at least this many reliable pieces of segments (one odd piece is not a person). */
const MIN_PIECES_PER_VOICE = 2;
/** At most this many voices: a meeting of more people than that is left to a diarizing provider. */
const MAX_VOICES = 4;

/** True when the provider told no speakers apart: every segment carries the same label. */
function unlabelled(segments: readonly TranscriptSegmentOut[]): boolean {
  return new Set(segments.map((s) => s.speaker)).size <= 1;
}

/**
 * The segments with `speaker_N` labels by voice (`speaker_0` the first voice heard), or null when the recording is not
 * a 16-bit PCM WAV or holds fewer than two voices that pitch can tell apart.
 */
export async function labelByVoice(
  audio: Readable,
  segments: readonly TranscriptSegmentOut[],
  signal?: AbortSignal,
): Promise<TranscriptSegmentOut[] | null> {
  // Too few segments to hold two people's turns: the recording is not read.
  if (segments.length < 2 * MIN_PIECES_PER_VOICE) {
    audio.destroy();
    return null;
  }
  const frames = await readSegmentFrames(audio, segments, signal);
  if (!frames) return null;
  // Each segment cut at its pauses (voice-turns.ts), so a segment that runs two people's turns together is two pieces.
  const pieces = piecesOf(frames);
  const voices = voicesOf(pieces.flat().map((piece) => voicedPitches(piece.frames, piece.from, piece.to)));
  if (!voices) return null;
  let at = 0;
  const labelled = segments.flatMap((segment, i) => {
    const own = voices.slice(at, (at += pieces[i]!.length));
    return splitByVoice(segment, pieces[i]!, own);
  });
  // Numbered again in order of first appearance: a split can put a voice first that the pieces' order did not.
  const numbering = new Map<number, number>();
  for (const { voice } of labelled) if (!numbering.has(voice)) numbering.set(voice, numbering.size);
  return labelled.map(({ voice, ...segment }) => ({ ...segment, speaker: `speaker_${numbering.get(voice)}` }));
}

/**
 * The voice index of each piece (voice-turns.ts), from its voiced frames' pitches, numbered in order of first
 * appearance; null when there are fewer than two voices.
 */
function voicesOf(piecePitches: ReadonlyArray<readonly number[]>): number[] | null {
  const pitches = piecePitches.map((frames) => (frames.length ? median(frames) : null));
  const reliable = piecePitches.flatMap((frames, i) => (frames.length >= RELIABLE_FRAMES ? [pitches[i]!] : []));
  const groups = pitchGroups(reliable);
  if (groups.length < 2 || groups.length > MAX_VOICES) return null;
  // Each piece joins the group nearest its pitch; one without voiced audio stays with the voice before it.
  const raw: number[] = [];
  pitches.forEach((pitch, i) => {
    raw[i] = pitch === null ? (raw[i - 1] ?? -1) : nearestGroup(groups, pitch);
  });
  const firstKnown = raw.find((g) => g >= 0) ?? 0;
  const numbering = new Map<number, number>();
  return raw.map((g) => {
    const group = g >= 0 ? g : firstKnown;
    if (!numbering.has(group)) numbering.set(group, numbering.size);
    return numbering.get(group)!;
  });
}

/**
 * The pitches split into voices, each as its [low, high]. First split: a group is cut where the two sides lie furthest
 * apart (Otsu's criterion on sorted values), as long as both sides have MIN_PIECES_PER_VOICE and lie
 * MIN_DISTANCE_SEMITONES apart. Then merge: two neighbouring groups that are not clearly apart (MIN_SEPARATION pooled
 * standard deviations of the two) are one voice, closest first. Splitting first and judging pairs after lets three
 * voices be found even where the first cut leaves two of them on one side.
 */
function pitchGroups(pitches: number[]): Array<[number, number]> {
  const groups: number[][] = [[...pitches].sort((a, b) => a - b)];
  for (let i = 0; i < groups.length; ) {
    const halves = split(groups[i]!);
    if (halves) groups.splice(i, 1, ...halves);
    else i++;
  }
  for (;;) {
    const pairs = groups.slice(1).map((high, i) => ({ at: i, low: groups[i]!, high }));
    const merge = pairs
      .filter(({ low, high }) => !clearlyApart(low, high))
      .sort((a, b) => mean(a.high) - mean(a.low) - (mean(b.high) - mean(b.low)))[0];
    if (!merge) break;
    groups.splice(merge.at, 2, [...merge.low, ...merge.high]);
  }
  return groups.length > MAX_VOICES ? [] : groups.map((g) => [g[0]!, g.at(-1)!]);
}

/** The cut of sorted values that leaves the two sides furthest apart, or null when no cut leaves two possible voices. */
function split(sorted: number[]): [number[], number[]] | null {
  let best: { at: number; between: number } | null = null;
  for (let at = MIN_PIECES_PER_VOICE; at <= sorted.length - MIN_PIECES_PER_VOICE; at++) {
    const between = at * (sorted.length - at) * (mean(sorted.slice(at)) - mean(sorted.slice(0, at))) ** 2;
    if (!best || between > best.between) best = { at, between };
  }
  if (!best) return null;
  const low = sorted.slice(0, best.at);
  const high = sorted.slice(best.at);
  return mean(high) - mean(low) >= MIN_DISTANCE_SEMITONES ? [low, high] : null;
}

/** Two groups of pitches (low below high) are two voices: far enough apart, and apart by far more than each varies. */
function clearlyApart(low: number[], high: number[]): boolean {
  const distance = mean(high) - mean(low);
  const pooled = Math.sqrt((sumOfSquares(low) + sumOfSquares(high)) / Math.max(1, low.length + high.length - 2));
  return distance >= MIN_DISTANCE_SEMITONES && distance >= MIN_SEPARATION * pooled;
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

function sumOfSquares(values: readonly number[]): number {
  const m = mean(values);
  return values.reduce((sum, v) => sum + (v - m) ** 2, 0);
}

function nearestGroup(groups: ReadonlyArray<[number, number]>, pitch: number): number {
  let best = 0;
  let bestDistance = Infinity;
  groups.forEach(([low, high], i) => {
    const distance = pitch < low ? low - pitch : pitch > high ? pitch - high : 0;
    if (distance < bestDistance) {
      bestDistance = distance;
      best = i;
    }
  });
  return best;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The provider's result, with speakers labelled by voice when the provider labelled none and the recording is a PCM
 * WAV with voices pitch can tell apart; otherwise as it was. `outcome` says which, for operators (metric
 * `convene_voice_labels_total`, docs/metrics.md): `labelled` (two or more voices told apart), `provider_labelled`
 * (the provider's own speakers, kept), `one_voice` (not a PCM WAV, or fewer than two voices pitch can tell apart),
 * `failed` (the recording could not be read again; `error` says why).
 * Reading the voices never fails a transcription: a recording it cannot read keeps the provider's labels. A
 * cancellation still ends it.
 */
export async function withVoiceLabels(
  result: TranscriptionResult,
  open: () => Promise<Readable>,
  signal?: AbortSignal,
): Promise<{ result: TranscriptionResult; outcome: VoiceLabelOutcome; error?: unknown }> {
  if (!unlabelled(result.segments)) return { result, outcome: 'provider_labelled' };
  try {
    const labelled = await labelByVoice(await open(), result.segments, signal);
    return labelled ? { result: { ...result, segments: labelled }, outcome: 'labelled' } : { result, outcome: 'one_voice' };
  } catch (err) {
    if (signal?.aborted) throw err;
    return { result, outcome: 'failed', error: err };
  }
}
