// Lints spec/asyncapi.yaml: the AsyncAPI parser's validation and ruleset, then the project's own rules that the
// parser does not check for AsyncAPI 3 (every example validates against its schema, messages are documented,
// WebSocket payloads are closed `{event, data}` envelopes). Exits 1 on any error.
//   node scripts/lint-asyncapi.ts [spec/asyncapi.yaml]
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { AsyncAPIDocumentInterface, Diagnostic } from '@asyncapi/parser';
import { ERROR_SEVERITY, catalogueMessages, parseAsyncApi, severityName, stripParserAnnotations } from './asyncapi-messages.ts';
import type { CataloguedMessage, JsonSchema } from './asyncapi-messages.ts';

function formatDiagnostic(specPath: string, diagnostic: Diagnostic): string {
  const line = diagnostic.range.start.line + 1;
  const where = diagnostic.path.length > 0 ? ` (${diagnostic.path.join('.')})` : '';
  return `${specPath}:${line} ${severityName(diagnostic)} ${diagnostic.code}: ${diagnostic.message}${where}`;
}

function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true });
  addFormats.default(ajv);
  return ajv;
}

function checkDocumentation(document: AsyncAPIDocumentInterface): string[] {
  const problems: string[] = [];
  if (!document.info().description()) problems.push('info: no description');
  for (const channel of document.channels().all()) {
    if (!channel.json('description') && !channel.json('summary')) problems.push(`channel ${channel.id()}: no description or summary`);
  }
  for (const operation of document.operations().all()) {
    if (!operation.summary() && !operation.description()) problems.push(`operation ${operation.id()}: no summary or description`);
  }
  for (const server of document.servers().all()) {
    if (!server.json('description') && !server.json('summary')) problems.push(`server ${server.id()}: no description or summary`);
  }
  for (const message of document.messages().all()) {
    const id = message.id();
    if (!message.name()) problems.push(`message ${id}: no name`);
    if (!message.title()) problems.push(`message ${id}: no title`);
    if (!message.summary()) problems.push(`message ${id}: no summary`);
    if (message.examples().length === 0) problems.push(`message ${id}: no example`);
    const payloadId = message.payload()?.id();
    if (!payloadId || !document.components().schemas().has(payloadId)) {
      problems.push(`message ${id}: payload must be a $ref to components/schemas`);
    }
  }
  return problems;
}

function checkClosedEnvelope(message: CataloguedMessage): string[] {
  const problems: string[] = [];
  const visit = (schema: JsonSchema, path: string): void => {
    if (schema.type === 'object' && schema.additionalProperties !== false) {
      problems.push(`${message.name}: ${path || 'payload'} is an object schema without additionalProperties: false`);
    }
    for (const [key, child] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
      visit(child, `${path}/${key}`);
    }
    for (const keyword of ['items', 'oneOf', 'anyOf', 'allOf']) {
      const value = schema[keyword];
      const children = Array.isArray(value) ? value : value ? [value] : [];
      children.forEach((child: JsonSchema, index: number) => visit(child, `${path}/${keyword}/${index}`));
    }
  };
  visit(message.payload, '');
  const required = (message.payload.required ?? []) as string[];
  if (!required.includes('event')) problems.push(`${message.name}: "event" must be required`);
  return problems;
}

function checkExamples(ajv: Ajv, message: CataloguedMessage): string[] {
  const problems: string[] = [];
  const validatePayload = ajv.compile(message.payload);
  const validateHeaders = message.headers ? ajv.compile(message.headers) : undefined;
  message.examples.forEach((example, index) => {
    const label = `${message.name} example ${example.name ?? index}`;
    if (!('payload' in example)) problems.push(`${label}: no payload`);
    else if (!validatePayload(example.payload)) {
      problems.push(`${label}: ${ajv.errorsText(validatePayload.errors, { dataVar: 'payload' })}`);
    }
    if (validateHeaders && 'headers' in example && !validateHeaders(example.headers)) {
      problems.push(`${label}: ${ajv.errorsText(validateHeaders.errors, { dataVar: 'headers' })}`);
    }
  });
  return problems;
}

export async function lintAsyncApi(specPath: string): Promise<{ errors: number; lines: string[] }> {
  const shownPath = specPath;
  const { document, diagnostics } = await parseAsyncApi(specPath);
  const lines = diagnostics.map((diagnostic) => formatDiagnostic(shownPath, diagnostic));
  let errors = diagnostics.filter((diagnostic) => diagnostic.severity === ERROR_SEVERITY).length;
  if (!document) return { errors: Math.max(errors, 1), lines };

  const problems: string[] = [...checkDocumentation(document)];
  const catalogue = catalogueMessages(document);
  problems.push(...catalogue.problems);
  const ajv = newAjv();
  for (const message of [...catalogue.client, ...catalogue.server]) problems.push(...checkClosedEnvelope(message));
  const all = [...catalogue.client, ...catalogue.server, ...catalogue.outgoingWebhooks, ...catalogue.incomingWebhooks];
  for (const message of all) problems.push(...checkExamples(ajv, message));
  // Replies (HTTP responses) are not in the catalogue; their examples are checked here.
  for (const message of document.messages().all()) {
    const payload = message.payload();
    if (!payload || all.some((entry) => entry.messageId === message.id())) continue;
    const reply: CataloguedMessage = {
      messageId: message.id(),
      name: message.name() ?? message.id(),
      payloadSchemaName: payload.id(),
      payload: stripParserAnnotations(payload.json()) as JsonSchema,
      examples: message.examples().all().map((example) => ({ name: example.name(), payload: example.payload() })),
    };
    problems.push(...checkExamples(ajv, reply));
  }
  for (const problem of problems) lines.push(`${shownPath} error convene-contract: ${problem}`);
  errors += problems.length;
  return { errors, lines };
}

if (import.meta.main) {
  const specPath = process.argv[2] ?? 'spec/asyncapi.yaml';
  const { errors, lines } = await lintAsyncApi(specPath);
  for (const line of lines) console.log(line);
  console.log(errors === 0 ? `${specPath}: no errors (${lines.length} other diagnostics)` : `${specPath}: ${errors} error(s)`);
  process.exitCode = errors === 0 ? 0 : 1;
}
