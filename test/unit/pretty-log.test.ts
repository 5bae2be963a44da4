import { prettyLogLines } from '../../scripts/stack/pretty-log.ts';

const format = prettyLogLines({ colorize: false });

test('a pino JSON line becomes one readable line: time, level, message, fields', () => {
  const line = JSON.stringify({ level: 30, time: Date.UTC(2026, 0, 2, 3, 4, 5, 678), pid: 1, hostname: 'h', service: 'convene', msg: 'request', method: 'GET', status: 200 });
  const shown = format(line);
  expect(shown).toMatch(/^\[\d\d:\d\d:\d\d\.678\] INFO: request \{"method":"GET","status":200\}$/);
  expect(shown).not.toContain('hostname');
});

test.each([['plain text', 'Error: boom'], ['a stack line', '    at main (src/main.ts:1:1)'], ['JSON that is not a log record', '{"a":1}'], ['broken JSON', '{"level":30,']])(
  '%s passes through unchanged',
  (_what, line) => {
    expect(format(line)).toBe(line);
  },
);
