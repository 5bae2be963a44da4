import type { components } from '../../../generated/openapi.ts';

/** Asks one dependency; stops asking when `signal` aborts (the probe's time is up). */
export type ReadinessCheck = (signal: AbortSignal) => Promise<void>;
/** One check per dependency the spec's `Readiness` names. */
export type ReadinessChecks = Record<keyof components['schemas']['Readiness']['checks'], ReadinessCheck>;
export type Readiness = components['schemas']['Readiness'];

export interface ReadinessOptions {
  /** How old an answer may be (1 s). */
  maxAgeMs?: number;
  /** A check that has not answered within this is an `error`, and is cancelled (3 s). */
  timeoutMs?: number;
  now?: () => number;
}

/**
 * GET /readyz is public and unauthenticated, so a flood of probes must cost the database, Temporal and S3 nothing
 * extra (docs/decisions.md §16): the answer is a result at most `maxAgeMs` old, and at most one round of checks is in
 * flight at a time — every probe that arrives meanwhile waits for that round instead of starting its own.
 */
export function cachedReadiness(checks: ReadinessChecks, options: ReadinessOptions = {}): () => Promise<Readiness> {
  const { maxAgeMs = 1000, timeoutMs = 3000, now = () => Date.now() } = options;
  let last: { at: number; result: Readiness } | undefined;
  let inFlight: Promise<Readiness> | undefined;
  return () => {
    if (last && now() - last.at <= maxAgeMs) return Promise.resolve(last.result);
    inFlight ??= checkAll(checks, timeoutMs)
      .then((result) => {
        last = { at: now(), result };
        return result;
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
}

async function checkAll(checks: ReadinessChecks, timeoutMs: number): Promise<Readiness> {
  const ask = (check: ReadinessCheck) => probe(check, timeoutMs);
  const [database, temporal, storage] = await Promise.all([ask(checks.database), ask(checks.temporal), ask(checks.storage)]);
  const states = { database, temporal, storage };
  return { status: Object.values(states).every((state) => state === 'ok') ? 'ok' : 'error', checks: states };
}

/** A check's state: `error` when it fails or takes longer than `timeoutMs`, and then it is cancelled. */
async function probe(check: ReadinessCheck, timeoutMs: number): Promise<'ok' | 'error'> {
  const signal = AbortSignal.timeout(timeoutMs);
  const timedOut = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
  try {
    await Promise.race([check(signal), timedOut]);
    return 'ok';
  } catch {
    return 'error';
  }
}
