// The time limit every test and hook gets under jest-light-runner (test/harness/test-timeouts.ts, docs/development.md
// "How jest runs a test file"): a function that never settles fails with jest's message once its limit has passed;
// one that settles in time gives its own outcome, with the arguments it was called with.
import { limited } from '../harness/test-timeouts.ts';

test('a function that never settles fails once its limit has passed', async () => {
  const started = Date.now();
  const failure = await Promise.resolve(limited(() => new Promise(() => {}), 100, 'a test')()).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(Error);
  expect((failure as Error).message).toMatch(/^Exceeded timeout of 100 ms for a test\./);
  expect(Date.now() - started).toBeGreaterThanOrEqual(90);
});

test('a function that settles in time gives its value or its error, and gets its arguments (test.each rows)', async () => {
  expect(await limited(async (a, b) => [a, b], 1000, 'a test')(1, 'two')).toEqual([1, 'two']);
  await expect(Promise.resolve(limited(() => Promise.reject(new Error('its own')), 1000, 'a hook (beforeAll)')())).rejects.toThrow('its own');
  await expect(Promise.resolve(limited(() => { throw new Error('thrown at once'); }, 1000, 'a test')())).rejects.toThrow('thrown at once');
});
