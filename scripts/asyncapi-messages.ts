// Reads spec/asyncapi.yaml with @asyncapi/parser and sorts its messages by direction, so the linter, the code
// generator and the tests agree on which message is a client message, a server message or a webhook.
import { readFile } from 'node:fs/promises';
import { DiagnosticSeverity, Parser } from '@asyncapi/parser';
import type { AsyncAPIDocumentInterface, Diagnostic, MessageInterface } from '@asyncapi/parser';

export type JsonSchema = { [key: string]: unknown };

export interface MessageExample {
  name?: string;
  payload?: unknown;
  headers?: unknown;
}

export interface CataloguedMessage {
  /** The message's key in components/messages. */
  messageId: string;
  /** The WebSocket `event` value, or the webhook's message name. */
  name: string;
  /** Name of the components/schemas entry the payload refers to. */
  payloadSchemaName: string;
  /** The payload schema with every $ref inlined and the parser's annotations removed. */
  payload: JsonSchema;
  headers?: JsonSchema;
  examples: MessageExample[];
}

export interface MessageCatalogue {
  /** WebSocket messages the server accepts. */
  client: CataloguedMessage[];
  /** WebSocket messages the server sends (including replies to client messages). */
  server: CataloguedMessage[];
  /** Webhooks Convene sends to tenants. */
  outgoingWebhooks: CataloguedMessage[];
  /** Webhooks Convene receives (request bodies only, not the replies). */
  incomingWebhooks: CataloguedMessage[];
  /** The WebSocket channel's `x-close-codes`. */
  closeCodes: Record<string, number>;
  /** Inconsistencies that make the catalogue unreliable (the linter reports them, the generator refuses). */
  problems: string[];
}

export const ERROR_SEVERITY = DiagnosticSeverity.Error;

export function severityName(diagnostic: Diagnostic): string {
  return (DiagnosticSeverity[diagnostic.severity] ?? String(diagnostic.severity)).toLowerCase();
}

// The parser's rules that do not fit this contract, each with the reason. (Its "recommended" rules, such as info
// contact and licence, apply to AsyncAPI 2 documents only; lint-asyncapi.ts checks the documentation itself.)
// Spectral accepts a severity ('off') in place of a rule definition when overriding an inherited rule; its types
// only describe full definitions.
type ParserRuleset = NonNullable<ConstructorParameters<typeof Parser>[0]>['ruleset'];
const RULE_OVERRIDES = {
  rules: {
    // The contract is pinned to AsyncAPI 3.0.0, the version the code generators and renderers support today.
    'asyncapi-latest-version': 'off',
  },
} as unknown as ParserRuleset;

export async function parseAsyncApi(
  specPath: string,
): Promise<{ document: AsyncAPIDocumentInterface | undefined; diagnostics: Diagnostic[] }> {
  const text = await readFile(specPath, 'utf8');
  const parser = new Parser({ ruleset: RULE_OVERRIDES });
  const { document, diagnostics } = await parser.parse(text, { source: specPath });
  return { document, diagnostics };
}

/** Deep copy without the `x-parser-*` keys the parser adds (ajv's strict mode refuses unknown keywords). */
export function stripParserAnnotations(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripParserAnnotations);
  if (value === null || typeof value !== 'object') return value;
  const copy: JsonSchema = {};
  for (const [key, child] of Object.entries(value)) {
    if (!key.startsWith('x-parser-')) copy[key] = stripParserAnnotations(child);
  }
  return copy;
}

function isWebSocketChannel(document: AsyncAPIDocumentInterface, channelId: string): boolean {
  const channel = document.channels().get(channelId);
  if (!channel) return false;
  return channel.servers().all().some((server) => server.protocol() === 'ws' || server.protocol() === 'wss');
}

function catalogue(message: MessageInterface, webSocket: boolean, problems: string[]): CataloguedMessage {
  const payloadSchema = message.payload();
  const payload = (payloadSchema ? stripParserAnnotations(payloadSchema.json()) : {}) as JsonSchema;
  const payloadSchemaName = payloadSchema?.id() ?? '';
  if (!payloadSchema) problems.push(`message ${message.id()}: no payload`);
  const name = message.name() ?? message.id();
  if (webSocket) {
    // The envelope's `event` constant is what travels on the wire; the message name must say the same.
    const event = (payload.properties as Record<string, JsonSchema> | undefined)?.event?.const;
    if (event !== name) {
      problems.push(`message ${message.id()}: name "${name}" differs from the payload's event constant "${String(event)}"`);
    }
  }
  const headers = message.headers();
  return {
    messageId: message.id(),
    name,
    payloadSchemaName,
    payload,
    ...(headers ? { headers: stripParserAnnotations(headers.json()) as JsonSchema } : {}),
    examples: message
      .examples()
      .all()
      .map((example) => ({
        ...(example.name() ? { name: example.name() } : {}),
        ...(example.hasPayload() ? { payload: example.payload() } : {}),
        ...(example.hasHeaders() ? { headers: example.headers() } : {}),
      })),
  };
}

function addUnique(list: CataloguedMessage[], entry: CataloguedMessage, group: string, problems: string[]): void {
  const existing = list.find((other) => other.name === entry.name);
  if (!existing) list.push(entry);
  else if (existing.messageId !== entry.messageId) {
    problems.push(`two ${group} messages are named "${entry.name}": ${existing.messageId}, ${entry.messageId}`);
  }
}

/** Sorts the messages by direction, from the operations (the document describes the Convene server). */
export function catalogueMessages(document: AsyncAPIDocumentInterface): MessageCatalogue {
  const problems: string[] = [];
  const result: MessageCatalogue = {
    client: [],
    server: [],
    outgoingWebhooks: [],
    incomingWebhooks: [],
    closeCodes: {},
    problems,
  };
  for (const operation of document.operations().all()) {
    const channelIds = operation.channels().all().map((channel) => channel.id());
    const webSocket = channelIds.some((id) => isWebSocketChannel(document, id));
    const sends = operation.action() === 'send';
    const target = webSocket
      ? sends ? result.server : result.client
      : sends ? result.outgoingWebhooks : result.incomingWebhooks;
    const group = webSocket ? (sends ? 'server' : 'client') : sends ? 'outgoing webhook' : 'incoming webhook';
    for (const message of operation.messages().all()) {
      addUnique(target, catalogue(message, webSocket, problems), group, problems);
    }
    // A WebSocket reply (pong) travels from the server to the client; HTTP replies are responses, not webhooks.
    const reply = operation.reply();
    if (webSocket && reply) {
      for (const message of reply.messages().all()) {
        addUnique(result.server, catalogue(message, true, problems), 'server', problems);
      }
    }
  }
  for (const channel of document.channels().all()) {
    if (!isWebSocketChannel(document, channel.id())) continue;
    const codes = channel.extensions().get('x-close-codes')?.value();
    if (codes) Object.assign(result.closeCodes, codes);
  }
  return result;
}
