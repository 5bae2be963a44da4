import pino, { type Logger } from 'pino';

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

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options = { level, base: { service: 'convene' }, redact: { paths: REDACT, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger };
