// Time limits for tests and hooks. jest-light-runner (jest.config.js) runs each test file's functions as they are,
// without jest's own timeout, so a test that waits for ever would hold the whole run until CI's limit. Here every
// test and hook is raced against its limit: the one given as the last argument (`test(name, fn, 120_000)`), else
// DEFAULT_MS, as jest does with its `testTimeout`. A test past its limit fails with jest's message; what it was doing
// is left running, as in jest.

type Fn = (...args: unknown[]) => unknown;
type Register = (name: string, fn?: Fn, timeout?: number) => unknown;
type Hook = (fn: Fn, timeout?: number) => unknown;

/** A minute: integration tests start real services and wait for workflows. */
const DEFAULT_MS = 60_000;

/** `fn`, failing once it has run `ms` without settling (test/unit/test-timeouts.test.ts). */
export function limited(fn: Fn, ms: number, what: string): Fn {
  return function (this: unknown, ...args: unknown[]) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Exceeded timeout of ${ms} ms for ${what}.\nAdd a timeout value to this test to increase the timeout, if this is a long-running test.`)),
        ms,
      );
      Promise.resolve()
        .then(() => fn.apply(this, args))
        .then(resolve, reject)
        .finally(() => clearTimeout(timer));
    });
  };
}

function limitedTest(original: Register & Record<string, unknown>): Register {
  const register = (run: Register) => (name: string, fn?: Fn, timeout?: number) =>
    run(name, fn && limited(fn, timeout ?? DEFAULT_MS, 'a test'), timeout);
  const each = original.each as (...table: unknown[]) => Register;
  const only = original.only as Register & { each: (...table: unknown[]) => Register };
  return Object.assign(register(original), {
    ...original,
    only: Object.assign(register(only), { each: (...table: unknown[]) => register(only.each(...table)) }),
    each: (...table: unknown[]) => register(each(...table)),
  });
}

function limitedHook(original: Hook, what: string): Hook {
  return (fn: Fn, timeout?: number) => original(limited(fn, timeout ?? DEFAULT_MS, what), timeout);
}

const g = globalThis as unknown as Record<string, unknown>;
g.test = limitedTest(g.test as Register & Record<string, unknown>);
g.it = g.test;
for (const hook of ['beforeAll', 'afterAll', 'beforeEach', 'afterEach']) {
  g[hook] = limitedHook(g[hook] as Hook, `a hook (${hook})`);
}
