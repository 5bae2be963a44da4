// The rendered AsyncAPI page (GET /docs/asyncapi, generated/asyncapi.html): @asyncapi/react-component renders a
// `summary` as plain text, so code spans written in the spec's summaries used to show their backticks. The page's copy
// of the document moves such summaries into the Markdown description (scripts/generate.ts, withRenderableSummaries).
import { readFileSync } from 'node:fs';
import { withRenderableSummaries } from '../../scripts/generate.ts';

const page = readFileSync(new URL('../../generated/asyncapi.html', import.meta.url), 'utf8');
/** The server-rendered markup (before the inlined scripts, which carry the raw document). */
const rendered = page.slice(page.indexOf('<div id="asyncapi">'), page.indexOf('<script>', page.indexOf('<div id="asyncapi">')));
const text = rendered
  .replace(/<[^>]+>/g, ' ')
  .replace(/&lt;/g, '<')
  .replace(/&gt;/g, '>')
  .replace(/&quot;/g, '"')
  .replace(/&#x27;/g, "'")
  .replace(/&amp;/g, '&');

test('the rendered page shows no literal backticks: code spans render as code', () => {
  expect(rendered.length).toBeGreaterThan(10_000);
  expect(text.split('\n').filter((line) => line.includes('`'))).toEqual([]);
  // Summaries of the spec that carried code spans, now code on the page.
  expect(rendered).toContain('Store the text and broadcast it as <code>chat.message</code>.');
  expect(rendered).toContain('Reply <code>pong</code> to the sender only.');
});

test('summaries with code spans move into the description; example summaries and payloads are left readable', () => {
  const document = {
    servers: { dev: { summary: 'Local (`npm run dev`).', host: 'localhost' } },
    operations: {
      chat: { summary: 'Broadcast `chat.message`.', description: 'Refused when `chat_enabled` is false.' },
      plain: { summary: 'No code here.' },
    },
    components: {
      messages: {
        ready: {
          summary: 'Sent as `meeting.recording_ready`.',
          examples: [{ summary: '401 `INVALID_SIGNATURE`: refused.', payload: { summary: 'A `summary` field of the payload' } }],
        },
      },
    },
  };
  expect(withRenderableSummaries(document)).toEqual({
    servers: { dev: { description: 'Local (`npm run dev`).', host: 'localhost' } },
    operations: {
      chat: { description: 'Broadcast `chat.message`.\n\nRefused when `chat_enabled` is false.' },
      plain: { summary: 'No code here.' },
    },
    components: {
      messages: {
        ready: {
          description: 'Sent as `meeting.recording_ready`.',
          examples: [{ summary: '401 INVALID_SIGNATURE: refused.', payload: { summary: 'A `summary` field of the payload' } }],
        },
      },
    },
  });
  expect(document.operations.chat.summary).toBe('Broadcast `chat.message`.'); // the served document is not touched
});
