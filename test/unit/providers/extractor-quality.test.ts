// The builtin extractor measured on the development media server's scripted meetings (docs/decisions.md §9):
// every scripted meeting knows its own action items, so recall and precision are exact. Goal: recall 100 %,
// precision >= 90 %. The measured numbers are printed and asserted. The script says "Bob will send the slides by
// Friday."; the analyser writes "Bob: send the slides by Friday" (asOwnerTask). Realistic meetings: analyser-corpus.test.ts.
import { analyzeTranscript } from '../../../src/providers/ai-builtin.ts';
import { scriptedTranscript } from '../../../dev/media-server/script.ts';
import { asOwnerTask } from '../../helpers/scripted-items.ts';

const MEETINGS = 40;

const normalise = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

test(`action items of ${MEETINGS} scripted meetings: recall 100 %, precision >= 90 %`, () => {
  let scripted = 0;
  let found = 0;
  let extracted = 0;
  let correct = 0;
  const misses: string[] = [];
  for (let i = 0; i < MEETINGS; i++) {
    const script = scriptedTranscript({
      recordingId: `quality-${i}-${(i * 7919).toString(36)}`,
      meetingName: i % 3 === 0 ? null : `Weekly sync ${i}`,
      durationSeconds: 30 + i * 17,
    });
    const { actionItems, summary } = analyzeTranscript({
      text: script.text,
      segments: script.segments.map((s) => ({ start: s.start, end: s.end, text: s.text, speaker: s.speaker })),
    });
    const truth = new Set(script.actionItems.map(asOwnerTask).map(normalise));
    const got = new Set(actionItems.map(normalise));
    scripted += truth.size;
    found += [...truth].filter((item) => got.has(item)).length;
    extracted += got.size;
    correct += [...got].filter((item) => truth.has(item)).length;
    for (const item of truth) if (!got.has(item)) misses.push(`missed: ${item}`);
    for (const item of got) if (!truth.has(item)) misses.push(`extra: ${item}`);
    expect(summary.length).toBeGreaterThan(0);
  }
  const recall = found / scripted;
  const precision = correct / extracted;
  console.log(
    `builtin extractor on ${MEETINGS} scripted meetings: recall ${(recall * 100).toFixed(1)} % (${found}/${scripted}), ` +
      `precision ${(precision * 100).toFixed(1)} % (${correct}/${extracted})` +
      (misses.length ? `\n${misses.join('\n')}` : ''),
  );
  expect(recall).toBe(1);
  expect(precision).toBeGreaterThanOrEqual(0.9);
});
