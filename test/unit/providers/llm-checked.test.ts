// "The model proposes, the rules check" (docs/decisions.md §9): what a small model answers through
// `openai-compatible` passes the same checks as the builtin analyser's items (src/providers/action-item-check.ts),
// against the part of the transcript it came from, the parts of a long meeting merge without duplicates, and the
// builtin analyser's own items give owners and fill what the model missed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAiCompatibleAnalyzer } from '../../../src/providers/ai-openai-compatible.ts';
import { insightsFrom } from '../../../src/providers/llm-answer.ts';

let server: Server;
let baseUrl: string;
/** What the stand-in model answers for a prompt (its user message): an object, or a message's text as it is. */
let answerFor: (user: string) => unknown;
const formats: unknown[] = [];
const maxTokens: unknown[] = [];
let refuseMaxTokens = false;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: Array<{ content: string }>; response_format?: unknown };
      formats.push(body.response_format);
      maxTokens.push((body as { max_tokens?: unknown }).max_tokens);
      if (refuseMaxTokens && (body as { max_tokens?: unknown }).max_tokens !== undefined) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model." } }));
        return;
      }
      const answer = answerFor(body.messages[1].content);
      const content = typeof answer === 'string' ? answer : JSON.stringify(answer);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const analyzer = (contextTokens = 8192) =>
  new OpenAiCompatibleAnalyzer({
    defaultProvider: 'openai-compatible',
    baseUrl,
    apiKey: undefined,
    model: 'local/qwen',
    timeoutMs: 5000,
    timeoutPer1kTokensMs: 0,
    contextTokens,
  });
const lines = (...texts: string[]) => {
  const segments = texts.map((text, i) => ({ start: i * 5, end: i * 5 + 5, text, speaker: 'speaker_0' }));
  return { text: texts.join(' '), segments, language: 'en' };
};

test("a model's items are tidied, grounded, owned only by names said, without fillers or repeats", async () => {
  answerFor = () => ({
    summary: 'Invoices and chairs.',
    action_items: [
      { owner: 'Omar', task: 'check the invoices against the contracts', due: 'Tuesday' },
      { owner: null, task: ', order the chairs for the hall', due: null },
      { owner: 'speaker_0', task: 'Sure, will do.', due: null },
      { owner: 'Priya', task: 'send your notes about the invoices', due: null },
      { owner: null, task: 'renew the office lease', due: null },
      { owner: 'Omar', task: 'check the invoices against the contracts', due: null },
    ],
  });
  const insights = await analyzer().analyze(
    lines(
      "Omar, can you check the invoices against the contracts by Tuesday?",
      'Sure, will do.',
      "We also need to order the chairs for the hall, and send notes about the invoices.",
    ),
  );
  expect(insights.actionItems).toEqual([
    'Omar: check the invoices against the contracts by Tuesday',
    'Order the chairs for the hall',
    // Priya is never said: the task stays, without her.
    'Send their notes about the invoices',
  ]);
  expect(formats.at(-1)).toMatchObject({ type: 'json_schema' });
  // The answer is bounded by the room kept for it in the context window.
  expect(maxTokens.at(-1)).toBe(1024);
});

test('a long meeting in parts: the same commitment proposed by two parts is one item, the named one kept', async () => {
  const filler = Array.from({ length: 120 }, (_, i) => `Point ${i} of the budget review was discussed at some length by the group today.`);
  const meeting = lines('Jun owns the database migration.', ...filler, 'To recap, Jun owns the database migration.');
  answerFor = (user) => ({
    summary: 'Part.',
    action_items: user.includes('To recap')
      ? [{ owner: 'Jun', task: 'own the database migration', due: null }]
      : user.includes('Jun owns')
        ? [{ owner: null, task: 'own the database migration', due: null }]
        : [{ owner: null, task: 'Okay.', due: null }],
  });
  const insights = await analyzer(2600).analyze(meeting);
  expect(insights.actionItems).toEqual(['Jun: own the database migration']);
});

test("the rules' items join the model's: an owner where the meeting says who, a commitment the model missed; the room's names reach the prompt", async () => {
  let prompt = '';
  answerFor = (user) => {
    prompt = user;
    return { summary: 'Hotels and a projector.', action_items: [{ owner: null, task: 'book the two hotels today', due: null }] };
  };
  const insights = await analyzer().analyze({
    ...lines('Zara, please book the two hotels today.', 'Hugo will rent a projector for both days.'),
    participants: ['Amelia', 'Hugo', 'Zara'],
  });
  expect(insights.actionItems).toEqual(['Zara: book the two hotels today', 'Hugo: rent a projector for both days']);
  expect(prompt).toContain('Participants (names as the room knows them): Amelia, Hugo, Zara');
});

test('an answer cut short keeps the items written out whole and the summary\'s whole sentences, in either order', () => {
  const cut =
    '{\n  "summary": "Invoices and chairs.",\n  "action_items": [\n    {"owner": "Omar", "task": "check the invoices against the contracts", "due": null},\n' +
    '    {"owner": null, "task": "order the chairs for the hall", "due": null},\n    {"owner": null, "task": "order the chai';
  expect(insightsFrom('p', cut)).toEqual({
    summary: 'Invoices and chairs.',
    actionItems: ['Omar: check the invoices against the contracts', 'order the chairs for the hall'],
  });
  // A summary that ran on keeps its whole sentences; without one or an item it is still an unusable answer.
  expect(insightsFrom('p', '{"summary": "The park repair was funded. The lighting and the lighting and the')).toEqual({
    summary: 'The park repair was funded.',
    actionItems: [],
  });
  expect(() => insightsFrom('p', '{"summary": "Invoi')).toThrow('unusable answer');
  // Items first, as the schema asks: the summary that ran on after them, or none at all when the items were cut.
  const itemsFirst = '{"action_items": [{"owner": "Omar", "task": "check the invoices", "due": null}], "summary": "Invoices. Invoices. The';
  expect(insightsFrom('p', itemsFirst)).toEqual({ summary: 'Invoices.', actionItems: ['Omar: check the invoices'] });
  const cutInItems = '{"action_items": [{"owner": "Omar", "task": "check the invoices", "due": "Friday"}, {"owner": "Li", "task": "ord';
  expect(insightsFrom('p', cutInItems)).toEqual({ summary: '', actionItems: ['Omar: check the invoices by Friday'] });
});

test("a summary that repeats itself says each sentence once; with none, the rules' summary stands in", async () => {
  const loop = 'The team reviewed the outage. The meeting concluded with the timeline. '.repeat(8);
  answerFor = () => ({ summary: loop, action_items: [] });
  const looped = await analyzer().analyze(lines('Omar, please check the invoices against the contracts by Friday.', 'Sure.'));
  expect(looped.summary).toBe('The team reviewed the outage. The meeting concluded with the timeline.');
  // The answer ran out of room inside its items: the items written whole stand, and the summary is the rules' own.
  answerFor = () => '{"action_items": [{"owner": "Omar", "task": "check the invoices against the contracts", "due": "Friday"}, {"owner": null, "task": "che';
  const cut = await analyzer().analyze(lines('Omar, please check the invoices against the contracts by Friday.', 'Sure.'));
  expect(cut.actionItems).toEqual(['Omar: check the invoices against the contracts by Friday']);
  expect(cut.summary).not.toBe('');
  expect(cut.summary).toContain('invoices');
  // The items are asked for before the summary, so that a summary that runs on cannot crowd them out.
  expect(Object.keys((formats.at(-1) as { json_schema: { schema: { properties: object } } }).json_schema.schema.properties)).toEqual(['action_items', 'summary']);
});

test('a summary is at most three sentences, however many the model writes', async () => {
  answerFor = () => ({
    summary:
      'The group planned the harvest festival. They agreed to run the soup stall again. They discussed the cake stall. ' +
      'They discussed the bouncy castle. They discussed the beans. They discussed the posters.',
    action_items: [],
  });
  const insights = await analyzer().analyze(lines('Kofi, please run the soup stall again on Sunday.', 'Sure.'));
  expect(insights.summary).toBe('The group planned the harvest festival. They agreed to run the soup stall again. They discussed the cake stall.');
});

test('an item list may not run on: at most 12 items for a short meeting, more for a long part, never over 50', async () => {
  answerFor = () => ({ summary: 'Budget.', action_items: [] });
  const maxItems = () => (formats.at(-1) as { json_schema: { schema: { properties: { action_items: { maxItems: number } } } } }).json_schema.schema.properties.action_items.maxItems;
  await analyzer().analyze(lines('Omar, please check the invoices against the contracts by Friday.', 'Sure.'));
  expect(maxItems()).toBe(12);
  // About 1,800 tokens of transcript in one part: one item for every 60.
  const talk = Array.from({ length: 60 }, (_, i) => `Point ${i} of the budget review was discussed at some length by the group today.`);
  await analyzer().analyze(lines(...talk));
  expect(maxItems()).toBeGreaterThan(20);
  expect(maxItems()).toBeLessThan(50);
  await analyzer().analyze(lines(...talk, ...talk, ...talk));
  expect(maxItems()).toBe(50);
});

test('a server that refuses max_tokens is asked again without it, and never sent it again', async () => {
  refuseMaxTokens = true;
  answerFor = () => ({ summary: 'S.', action_items: [{ owner: 'Omar', task: 'check the invoices', due: null }] });
  const refusing = new OpenAiCompatibleAnalyzer({
    defaultProvider: 'openai-compatible',
    baseUrl: `${baseUrl}/refusing`,
    apiKey: undefined,
    model: 'local/qwen',
    timeoutMs: 5000,
    timeoutPer1kTokensMs: 0,
    contextTokens: 8192,
  });
  const meeting = lines('Omar, can you check the invoices?', 'Sure.');
  const before = maxTokens.length;
  expect((await refusing.analyze(meeting)).actionItems).toEqual(['Omar: check the invoices']);
  expect(await refusing.analyze(meeting)).toMatchObject({ actionItems: ['Omar: check the invoices'] });
  expect(maxTokens.slice(before)).toEqual([1024, undefined, undefined]);
  refuseMaxTokens = false;
});
