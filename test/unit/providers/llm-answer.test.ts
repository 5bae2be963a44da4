// Reading a language model's answer (src/providers/llm-answer.ts) and cutting a transcript to a context window
// (src/providers/transcript-parts.ts): what self-hosted models actually write (docs/decisions.md §9 "Self-hosted LLMs").
import { loadConfig, ConfigError } from '../../../src/config.ts';
import { requestTimeoutMs } from '../../../src/providers/ai-openai-compatible.ts';
import { cleanActionItems, firstJsonObject, insightsFrom, saysNothingToDo } from '../../../src/providers/llm-answer.ts';
import { estimateTokens, takePart } from '../../../src/providers/transcript-parts.ts';

describe('the JSON object in a message', () => {
  test.each([
    ['bare', '{"summary": "S.", "action_items": []}'],
    ['fenced', '```json\n{"summary": "S.", "action_items": []}\n```'],
    ['fenced without a language', '```\n{"summary": "S.", "action_items": []}\n```'],
    ['in prose', 'Sure! Here is the JSON:\n\n```json\n{"summary": "S.", "action_items": []}\n```\nHope this helps {smile}.'],
    ['after prose with braces', 'Use {curly} braces: {"summary": "S.", "action_items": []} done'],
  ])('%s', (_name, content) => {
    expect(firstJsonObject(content)).toEqual({ summary: 'S.', action_items: [] });
  });

  test('braces and quotes inside strings do not end the object early', () => {
    expect(firstJsonObject('x {"summary": "a } b \\" {c", "action_items": ["d}"]} y')).toEqual({ summary: 'a } b " {c', action_items: ['d}'] });
  });

  test('no object, or one cut short, is an unusable answer with the start of the message', () => {
    expect(firstJsonObject('The meeting went well.')).toBeUndefined();
    expect(() => insightsFrom('p', '```json\n{"summary": "cut sho')).toThrow('p gave an unusable answer: the message is not JSON: ```json\n{"summary": "cut sho');
  });
});

describe('action items', () => {
  test('objects become "Owner: task by deadline"; text stays as written', () => {
    const { actionItems } = insightsFrom(
      'p',
      JSON.stringify({
        summary: 'S.',
        action_items: [
          { owner: 'Bob', task: 'send the slides', due: 'Friday' },
          { assignee: 'Dana', description: 'Dana looks into the outage' },
          { owner: null, task: 'book the room' },
          'Tom: write the release notes by Monday',
        ],
      }),
    );
    expect(actionItems).toEqual(['Bob: send the slides by Friday', 'Dana looks into the outage', 'book the room', 'Tom: write the release notes by Monday']);
  });

  test("a due is written as a time said in a sentence, never twice, and a due that says no time is left out", () => {
    const item = (task: string, due: string) => insightsFrom('p', JSON.stringify({ summary: 'S.', action_items: [{ owner: 'Ann', task, due }] })).actionItems[0];
    expect(item('call the client', 'Afternoon')).toBe('Ann: call the client this afternoon');
    expect(item('order the lemons', 'Tomorrow')).toBe('Ann: order the lemons tomorrow');
    expect(item('check the hearing date', 'Later')).toBe('Ann: check the hearing date');
    expect(item('update the forecast', 'TBD')).toBe('Ann: update the forecast');
    expect(item('call the CFO directly this week', 'next week')).toBe('Ann: call the CFO directly this week');
    expect(item('read the draft over the weekend', 'Friday')).toBe('Ann: read the draft over the weekend by Friday');
    expect(item('send the slides', 'Friday')).toBe('Ann: send the slides by Friday');
    // The task says the day in its own words: not "on Monday by Monday".
    expect(item('send the banner ads back on Monday', 'Monday')).toBe('Ann: send the banner ads back on Monday');
    expect(item('ring the teacher on Friday either way', 'by Friday')).toBe('Ann: ring the teacher on Friday either way');
    // The owner is added unless the task says the name as a word: "tomorrow" does not say "Tom".
    const tom = insightsFrom('p', JSON.stringify({ summary: 'S.', action_items: [{ owner: 'Tom', task: 'call the supplier tomorrow', due: null }] }));
    expect(tom.actionItems).toEqual(['Tom: call the supplier tomorrow']);
  });

  test.each([
    'No new tasks this week.',
    'None',
    'none.',
    'N/A',
    'n/a',
    'No action items.',
    'No action items were identified in this meeting.',
    'There are no new action items.',
    'Nothing to do.',
    'Nothing',
    'No follow-ups for now.',
    'Alice: none',
    '- None -',
  ])('"%s" says there is nothing to do and is dropped', (item) => {
    expect(saysNothingToDo(item.replace(/^- | -$/g, ''))).toBe(true);
    expect(cleanActionItems([item, 'Bob: send the slides'])).toEqual(['Bob: send the slides']);
  });

  test.each(['No one should deploy on Friday without Sam: Sam reviews the checklist', 'Nina: note the tasks for the retro', 'Book the room for the no-tasks workshop'])(
    '"%s" is a task and is kept',
    (item) => {
      expect(cleanActionItems([item])).toEqual([item]);
    },
  );

  test("a recogniser's label or a placeholder is never an owner; the task stays", () => {
    expect(cleanActionItems(['speaker_2: draft the agenda', 'Speaker 1: check the invoices', 'Unknown: rename the folders', 'SPK_3: call the vendor'])).toEqual([
      'draft the agenda',
      'check the invoices',
      'rename the folders',
      'call the vendor',
    ]);
  });

  test('repeats across parts are merged (case, punctuation and bullets aside), first wording kept, at most 50', () => {
    expect(cleanActionItems(['Dana: send the budget by Friday.', '- dana: Send the budget by Friday', '2. Tom: notes', 'Tom: notes!'])).toEqual([
      'Dana: send the budget by Friday.',
      'Tom: notes',
    ]);
    expect(cleanActionItems(Array.from({ length: 80 }, (_, i) => `task ${i}`))).toHaveLength(50);
  });
});

describe('parts of a transcript', () => {
  test('tokens are over-estimated for English (3 characters a token) and counted per character for CJK', () => {
    expect(estimateTokens('a'.repeat(300))).toBe(100);
    expect(estimateTokens('会議の要約')).toBe(5);
  });

  test('lines fill a part up to the budget; a single line over it is cut at a word and keeps its speaker', () => {
    const lines = ['A: ' + 'word '.repeat(10).trim(), 'B: short', 'C: ' + 'long '.repeat(100).trim()];
    const first = takePart(lines, 30);
    expect(first.part).toEqual([lines[0], 'B: short']);
    const second = takePart(first.rest, 30);
    expect(second.part).toHaveLength(1);
    expect(second.part[0]).toMatch(/^C: long( long)+$/);
    expect(estimateTokens(second.part[0])).toBeLessThanOrEqual(29);
    expect(second.rest[0]).toMatch(/^C: long( long)+$/);
    let rest = second.rest;
    let words = second.part[0].split(' ').length - 1;
    while (rest.length > 0) {
      const next = takePart(rest, 30);
      words += next.part.join(' ').split(' ').filter((w) => w === 'long').length;
      rest = next.rest;
    }
    expect(words).toBe(100);
  });
});

test('the time limit is AI_TIMEOUT_MS plus AI_TIMEOUT_PER_1K_TOKENS_MS per started thousand prompt tokens', () => {
  expect(requestTimeoutMs({ timeoutMs: 120_000, timeoutPer1kTokensMs: 30_000 }, 0)).toBe(120_000);
  expect(requestTimeoutMs({ timeoutMs: 120_000, timeoutPer1kTokensMs: 30_000 }, 6500)).toBe(330_000);
});

test('AI settings: defaults for an 8k self-hosted server, validated', () => {
  expect(loadConfig({}).providers.ai).toMatchObject({ timeoutMs: 120_000, timeoutPer1kTokensMs: 30_000, contextTokens: 8192 });
  expect(loadConfig({ AI_CONTEXT_TOKENS: '128000', AI_TIMEOUT_PER_1K_TOKENS_MS: '0' }).providers.ai).toMatchObject({ contextTokens: 128_000, timeoutPer1kTokensMs: 0 });
  expect(() => loadConfig({ AI_CONTEXT_TOKENS: '1000' })).toThrow(ConfigError);
  expect(() => loadConfig({ AI_CONTEXT_TOKENS: '8k' })).toThrow('Invalid AI_CONTEXT_TOKENS');
  expect(() => loadConfig({ AI_TIMEOUT_PER_1K_TOKENS_MS: '-1' })).toThrow('Invalid AI_TIMEOUT_PER_1K_TOKENS_MS');
});
