// docs/decisions.md §13, "no secret in history", as a reusable check: list every workflow run that a visibility query finds
// (a task queue, a search attribute), fetch each history, and scan every event: payloads (inputs, results, heartbeats,
// signals, memos, search attributes) decoded to text, and every string (failure messages, stack traces, summaries).
import type { Client } from '@temporalio/client';

/** What never belongs in a history, whatever the tenant: signed links, presigned S3 URLs, API keys, webhook secrets, JWTs. */
export const FORBIDDEN_PATTERNS: readonly RegExp[] = [/sig=/i, /X-Amz-Signature/i, /cvn_/, /whsec/i, /eyJ[A-Za-z0-9_-]{5,}/];

export interface RunRef {
  workflowId: string;
  runId: string;
  type: string;
  status: string;
}

export interface Finding {
  workflowId: string;
  runId: string;
  eventId: string;
  eventType: string;
  /** Path of the field inside the event, e.g. `workflowExecutionStartedEventAttributes.input.payloads.0.data`. */
  field: string;
  /** What matched: the secret (masked) or the pattern. */
  match: string;
}

/** Every run the query finds, e.g. `ConveneTenantId = "<id>"` or `TaskQueue = "<queue>"`. */
export async function listRuns(client: Client, query: string): Promise<RunRef[]> {
  const runs: RunRef[] = [];
  for await (const run of client.workflow.list({ query })) {
    runs.push({ workflowId: run.workflowId, runId: run.runId, type: run.type, status: run.status.name });
  }
  return runs;
}

/**
 * Visibility is eventually consistent: polls until `accept` is satisfied by the listed runs (or the time is up, then
 * returns the last listing so the caller's assertion shows what was there).
 */
export async function listRunsUntil(client: Client, query: string, accept: (runs: RunRef[]) => boolean, timeoutMs = 10_000): Promise<RunRef[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = await listRuns(client, query);
    if (accept(runs) || Date.now() > deadline) return runs;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Scans every event of every run the query finds for the given secrets and FORBIDDEN_PATTERNS. Empty: clean. */
export async function scanHistories(client: Client, query: string, secrets: readonly string[]): Promise<{ runs: RunRef[]; events: number; findings: Finding[] }> {
  const runs = await listRuns(client, query);
  const findings: Finding[] = [];
  let events = 0;
  for (const run of runs) {
    const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
    for (const event of history.events ?? []) {
      events += 1;
      const eventType = String(event.eventType ?? '');
      for (const [field, text] of textsOf(event, '')) {
        for (const secret of secrets) {
          if (secret && text.includes(secret)) findings.push({ ...ref(run, event, eventType), field, match: `secret ${mask(secret)}` });
        }
        for (const pattern of FORBIDDEN_PATTERNS) {
          if (pattern.test(text)) findings.push({ ...ref(run, event, eventType), field, match: `pattern ${pattern}` });
        }
      }
    }
  }
  return { runs, events, findings };
}

function ref(run: RunRef, event: { eventId?: unknown }, eventType: string) {
  return { workflowId: run.workflowId, runId: run.runId, eventId: String(event.eventId ?? ''), eventType };
}

/** Every string in the event, with payload bytes decoded as UTF-8 (the JSON payload converter's encoding). */
function* textsOf(value: unknown, path: string): Generator<[string, string]> {
  if (value === null || value === undefined) return;
  if (typeof value === 'string') {
    yield [path, value];
  } else if (value instanceof Uint8Array) {
    yield [path, Buffer.from(value).toString('utf8')];
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* textsOf(item, `${path}.${i}`);
  } else if (typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) yield* textsOf(item, path ? `${path}.${key}` : key);
  }
}

const mask = (secret: string) => `${secret.slice(0, 4)}…(${secret.length})`;
