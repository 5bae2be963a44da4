import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import type { ClientMessage, ErrorData, ServerMessage } from '../../generated/asyncapi.ts';

// Client messages are checked at run time against the message schemas generated from spec/asyncapi.yaml
// (generated/asyncapi-schemas.json), so the contract and the gateway cannot drift apart.

type Schema = Record<string, unknown>;
interface SchemaFile {
  client: Record<string, Schema>;
  server: Record<string, Schema>;
}

const schemas = JSON.parse(readFileSync(new URL('../../generated/asyncapi-schemas.json', import.meta.url), 'utf8')) as SchemaFile;

function compile(group: Record<string, Schema>): Map<string, ValidateFunction> {
  const ajv = new Ajv({ allErrors: false, strict: true });
  addFormats.default(ajv);
  return new Map(Object.entries(group).map(([event, schema]) => [event, ajv.compile(schema)]));
}

const clientValidators = compile(schemas.client);
const serverValidators = compile(schemas.server);

export type ParsedClientMessage = { ok: true; message: ClientMessage } | { ok: false; error: ErrorData };

/** A text frame from a client: its message, or the `error` data to answer it with. */
export function parseClientMessage(text: string): ParsedClientMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return invalid('INVALID_MESSAGE', 'The message is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { event?: unknown }).event !== 'string') {
    return invalid('INVALID_MESSAGE', 'A message is a JSON object { "event": string, "data": object }');
  }
  const event = (value as { event: string }).event;
  const validate = clientValidators.get(event);
  if (!validate) return invalid('UNKNOWN_EVENT', `Unknown event "${event.slice(0, 100)}"`);
  if (!validate(value)) {
    const first = validate.errors?.[0];
    const where = first?.instancePath ? first.instancePath.slice(1) : 'message';
    return invalid('INVALID_MESSAGE', `${where} ${first?.message ?? 'is invalid'}`);
  }
  return { ok: true, message: value as ClientMessage };
}

/** The `resume_from` of a `resume` message (docs/decisions.md §11); undefined for any other text. */
export function resumeRequest(text: string | null): number | undefined {
  if (text === null) return undefined;
  const parsed = parseClientMessage(text);
  return parsed.ok && parsed.message.event === 'resume' ? parsed.message.data.resume_from : undefined;
}

/** Checks a server message against its schema: used by tests and examples, never on the hot path. */
export function serverMessageErrors(message: unknown): string | null {
  const event = (message as { event?: unknown } | null)?.event;
  const validate = typeof event === 'string' ? serverValidators.get(event) : undefined;
  if (!validate) return `unknown server event ${JSON.stringify(event)}`;
  return validate(message) ? null : JSON.stringify(validate.errors);
}

export function errorMessage(error: ErrorData): ServerMessage {
  return { event: 'error', data: error };
}

function invalid(code: ErrorData['code'], message: string): ParsedClientMessage {
  return { ok: false, error: { code, message } };
}
