// GET /readyz's answer (src/modules/system/readiness.ts): a flood of probes runs one round of checks, a result is
// reused while it is at most 1 s old, and a check that hangs is cancelled and reported as `error` (docs/decisions.md §16).
import { cachedReadiness, type ReadinessCheck, type ReadinessChecks } from '../../../src/modules/system/readiness.ts';

function counting(check: ReadinessCheck = async () => {}) {
  const calls: AbortSignal[] = [];
  const counted: ReadinessCheck = (signal) => {
    calls.push(signal);
    return check(signal);
  };
  return { calls, counted };
}

test('probes arriving together share one round of checks; a result older than 1 s is checked again', async () => {
  const db = counting();
  const temporal = counting();
  const storage = counting();
  let clock = 0;
  const readiness = cachedReadiness({ database: db.counted, temporal: temporal.counted, storage: storage.counted }, { now: () => clock });

  const answers = await Promise.all(Array.from({ length: 50 }, () => readiness()));
  expect(new Set(answers.map((a) => JSON.stringify(a)))).toEqual(new Set([JSON.stringify({ status: 'ok', checks: { database: 'ok', temporal: 'ok', storage: 'ok' } })]));
  expect([db.calls.length, temporal.calls.length, storage.calls.length]).toEqual([1, 1, 1]);

  clock = 1000; // exactly 1 s old: still served
  await readiness();
  expect(db.calls).toHaveLength(1);
  clock = 1001;
  await readiness();
  expect(db.calls).toHaveLength(2);
});

test('a check that hangs is cancelled and named; the next round asks again', async () => {
  const hanging = counting((signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))));
  const checks: ReadinessChecks = { database: async () => {}, temporal: hanging.counted, storage: async () => { throw new Error('down'); } };
  let clock = 0;
  const readiness = cachedReadiness(checks, { timeoutMs: 50, now: () => clock });
  expect(await readiness()).toEqual({ status: 'error', checks: { database: 'ok', temporal: 'error', storage: 'error' } });
  expect(hanging.calls[0].aborted).toBe(true);
  clock = 5000;
  await readiness();
  expect(hanging.calls).toHaveLength(2);
});
