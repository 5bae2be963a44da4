// A real local webhook receiver for the delivery tests: it answers from a script (status, delay, hang, reset) and
// records every request with its raw body and whether the signature verifies with the same verifyWebhook the
// example receiver and docs/webhooks.md use.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { verifyWebhook } from '../../src/security/signatures.ts';

// The payload schema of spec/asyncapi.yaml, compiled as test/unit/asyncapi-contract.test.ts compiles it.
const schemas = JSON.parse(readFileSync(new URL('../../generated/asyncapi-schemas.json', import.meta.url), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: true });
addFormats.default(ajv);
// One validator per outgoing event; a body is checked against the schema its own `event` names.
const validators = new Map(Object.entries(schemas.webhooks.outgoing).map(([event, schema]) => [event, ajv.compile(schema as object)]));
function schemaErrorsOf(json: any): string | null {
  const validate = validators.get(json?.event) ?? validators.get('meeting.recording_ready')!;
  return validate(json) ? null : ajv.errorsText(validate.errors);
}

export type ScriptedAnswer =
  | { status: number; headers?: Record<string, string>; body?: string; delayMs?: number }
  /** Accept the request and never answer (the sender's timeout fires). */
  | { hang: true }
  /** Close the connection without an answer (ECONNRESET at the sender). */
  | { reset: true };

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  json: any;
  signatureValid: boolean;
  /** Null when the body matches the AsyncAPI payload schema; otherwise ajv's complaints. */
  schemaErrors: string | null;
  receivedAt: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Answers for the next requests, in order; when it runs out, `fallback` answers. */
  script(answers: ScriptedAnswer[], fallback?: ScriptedAnswer): void;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(secret: string, path = '/hooks/convene'): Promise<WebhookReceiver> {
  let queue: ScriptedAnswer[] = [];
  let fallback: ScriptedAnswer = { status: 200, body: 'ok' };
  const received: ReceivedWebhook[] = [];
  const waiters: Array<() => void> = [];
  const hanging = new Set<ServerResponse>();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      let json: unknown = null;
      try {
        json = JSON.parse(rawBody.toString('utf8'));
      } catch {
        // recorded as null: the test says what it expected
      }
      received.push({
        headers: req.headers,
        rawBody,
        json,
        signatureValid: verifyWebhook(
          secret,
          req.headers['x-convene-signature'] as string | undefined,
          req.headers['x-convene-timestamp'] as string | undefined,
          rawBody,
        ),
        schemaErrors: schemaErrorsOf(json),
        receivedAt: Date.now(),
      });
      for (const wake of waiters.splice(0)) wake();
      const answer = queue.shift() ?? fallback;
      if ('hang' in answer) return void hanging.add(res);
      if ('reset' in answer) return void req.socket.destroy();
      const send = () => res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;

  return {
    url,
    received,
    script(answers, next) {
      queue = [...answers];
      if (next) fallback = next;
    },
    async waitFor(count, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} webhooks in ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
      return received;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
