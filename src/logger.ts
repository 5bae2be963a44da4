import pino, { type Logger } from 'pino';
import { activeTraceIds } from './tracing/spans.ts';

// Structured JSON logs. Credentials never reach a log line: these paths are replaced wherever they appear.
const REDACT = [
  'req.headers["x-api-key"]',
  'req.headers["x-admin-key"]',
  'req.headers.authorization',
  'req.headers["sec-websocket-protocol"]',
  'req.headers.cookie',
  '*.api_key',
  '*.secret',
  '*.refresh_token',
  '*.access_token',
  '*.auth_token',
  '*.password',
];

/**
 * Without a destination (the API and the worker), stdout through an asynchronous buffered writer: a request never
 * waits for a write(2) of its log line (synchronous writes cost up to ~8 % of the API's CPU under load, depending on
 * where stdout leads: BENCHMARKS.md, "REST hot paths"). A line is handed to the kernel at once when no write is in
 * flight; under load, lines gather while one is and go in the next write. Whatever is still buffered is written
 * synchronously when the process exits, so a line logged just before `process.exit` (shutdown, a failed start) is not
 * lost.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  // A line written inside a traced request or activity names its trace (docs/decisions.md §12): `trace_id`, `span_id`.
  const options = { level, base: { service: 'convene' }, redact: { paths: REDACT, censor: '[redacted]' }, mixin: activeTraceIds };
  if (destination) return pino(options, destination);
  const stdout = pino.destination({ dest: 1, sync: false });
  process.once('exit', () => stdout.flushSync());
  return pino(options, stdout);
}

export type { Logger };
