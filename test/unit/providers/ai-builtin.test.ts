// The builtin analyser's rules, one by one, and what they must not take for an action item.
import { BuiltinAnalyzer, analyzeTranscript } from '../../../src/providers/ai-builtin.ts';
import type { TranscriptSegmentOut } from '../../../src/providers/types.ts';

const said = (lines: Array<[string, string]>): { text: string; segments: TranscriptSegmentOut[] } => ({
  text: lines.map(([, text]) => text).join(' '),
  segments: lines.map(([speaker, text], i) => ({ start: i * 5, end: i * 5 + 5, text, speaker })),
});

test('commitments, first person, explicit markers and requests to a named person', () => {
  const { actionItems } = analyzeTranscript(
    said([
      ['Alice', 'So the launch moves to May.'],
      ['Alice', 'Bob will send the revised budget by Thursday.'],
      ['Carol', "I'll draft the press release."],
      ['Dave', 'Action item: book the venue for the offsite.'],
      ['Alice', 'Erin, can you check the contract terms?'],
      ['Bob', 'To do: update the dashboard.'],
      ['Carol', 'Frank, please review the design.'],
    ]),
  );
  expect(actionItems).toEqual([
    'Bob will send the revised budget by Thursday.',
    'Carol will draft the press release.',
    'Book the venue for the offsite.',
    'Erin to check the contract terms.',
    'Update the dashboard.',
    'Frank to review the design.',
  ]);
});

test('no false commitments: things that "will" happen, pronouns, days', () => {
  const { actionItems } = analyzeTranscript(
    said([
      ['Alice', 'The release will be late.'],
      ['Bob', 'Friday will be busy.'],
      ['Carol', 'It will rain tomorrow.'],
      ['Dave', 'We will see.'],
      ['Erin', 'Can you hear me?'],
      ['Frank', 'I can prepare a proposal for that.'],
    ]),
  );
  expect(actionItems).toEqual([]);
});

test('the summary keeps the sentences that carry the meeting, in order, and is deterministic', async () => {
  const input = said([
    ['Alice', 'Good morning everyone.'],
    ['Bob', 'The mobile launch budget is approved.'],
    ['Carol', 'Nice weather today.'],
    ['Alice', 'The mobile launch date depends on the budget review.'],
    ['Bob', 'Thanks.'],
    ['Carol', 'Bob will send the mobile launch plan by Friday.'],
    ['Dave', 'See you.'],
    ['Erin', 'Bye.'],
  ]);
  const first = await new BuiltinAnalyzer().analyze({ ...input, language: 'en' });
  expect(first.summary).toBe(
    'The mobile launch budget is approved. The mobile launch date depends on the budget review. Bob will send the mobile launch plan by Friday.',
  );
  expect(await new BuiltinAnalyzer().analyze({ ...input, language: 'en' })).toEqual(first);
});

test('an empty transcript gives an empty summary and no items', () => {
  expect(analyzeTranscript({ text: '', segments: [] })).toEqual({ summary: '', actionItems: [] });
});
