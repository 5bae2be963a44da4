// Builds generated/ from the hand-written contract in spec/. Every file it writes starts with a DO-NOT-EDIT banner.
//   node scripts/generate.ts [--out DIR] [--openapi FILE] [--asyncapi FILE]      (npm run generate)
//
// generated/openapi.ts           openapi-typescript types of spec/openapi.yaml (paths, operations, components)
// generated/asyncapi.ts          types of every AsyncAPI schema, the ServerMessage / ClientMessage unions, close codes
// generated/asyncapi-schemas.json  each message's payload schema with $refs inlined, for ajv at run time
// generated/docs.html            redocly build-docs page of spec/openapi.yaml, Redoc's script inlined (no CDN)
// generated/asyncapi.html        @asyncapi/react-component page of spec/asyncapi.yaml: rendered to HTML here, then
//                                hydrated by the component's standalone bundle, CSS and script inlined (no CDN)
//
// The AsyncAPI types come from openapi-typescript too, fed a synthetic OpenAPI 3.1 document holding the AsyncAPI
// components/schemas: @asyncapi/modelina renames wire fields (display_name → displayName, event → reservedEvent)
// and invents names (AnonymousSchema_18), which would make the types disagree with the JSON on the wire.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import type { OpenAPI3 } from 'openapi-typescript';
import { parse as parseYaml } from 'yaml';
import { catalogueMessages, parseAsyncApi, ERROR_SEVERITY } from './asyncapi-messages.ts';
import type { CataloguedMessage, JsonSchema, MessageCatalogue } from './asyncapi-messages.ts';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const GENERATED_FILES = ['openapi.ts', 'asyncapi.ts', 'asyncapi-schemas.json', 'docs.html', 'asyncapi.html'] as const;

export interface GenerateOptions {
  outDir: string;
  openapiPath?: string;
  asyncapiPath?: string;
}

const COMMAND = 'npm run generate';

function bannerText(source: string): string {
  return `DO NOT EDIT: generated from ${source} by \`${COMMAND}\` (scripts/generate.ts).`;
}

function tsBanner(source: string): string {
  return `// ${bannerText(source)}\n// Change the spec and regenerate; \`node scripts/check-generated.ts\` fails when this file is stale.\n\n`;
}

function shown(path: string): string {
  return relative(REPO_ROOT, path).split('\\').join('/');
}

async function openApiTypes(openapiPath: string): Promise<string> {
  const ast = await openapiTS(pathToFileURL(openapiPath), { silent: true });
  return tsBanner(shown(openapiPath)) + astToString(ast);
}

function identifier(name: string): string {
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) throw new Error(`schema name "${name}" is not a TypeScript identifier`);
  return name;
}

function union(messages: CataloguedMessage[]): string {
  return messages.map((message) => `\n    | ${identifier(message.payloadSchemaName)}`).join('') || ' never';
}

function messageExtras(catalogue: MessageCatalogue): string {
  const eventList = (messages: CataloguedMessage[]): string =>
    messages.map((message) => `\n    ${JSON.stringify(message.name)},`).join('');
  const closeCodes = Object.entries(catalogue.closeCodes)
    .map(([name, code]) => `\n    ${identifier(name)}: ${Number(code)},`)
    .join('');
  return `
/** Every message the Convene server sends on the room WebSocket, discriminated by \`event\`. */
export type ServerMessage =${union(catalogue.server)};

/** Every message a client may send on the room WebSocket, discriminated by \`event\`. */
export type ClientMessage =${union(catalogue.client)};

export type ServerEventName = ServerMessage['event'];
export type ClientEventName = ClientMessage['event'];
export type ServerMessageOf<E extends ServerEventName> = Extract<ServerMessage, { event: E }>;
export type ClientMessageOf<E extends ClientEventName> = Extract<ClientMessage, { event: E }>;

export const SERVER_EVENTS = [${eventList(catalogue.server)}
] as const satisfies readonly ServerEventName[];

export const CLIENT_EVENTS = [${eventList(catalogue.client)}
] as const satisfies readonly ClientEventName[];

/** WebSocket close codes (the room channel's \`x-close-codes\`). */
export const CloseCode = {${closeCodes}
} as const;
export type CloseCode = (typeof CloseCode)[keyof typeof CloseCode];

/** Webhooks Convene sends (body types). */
export type OutgoingWebhookPayload =${union(catalogue.outgoingWebhooks)};

/** Webhooks Convene receives (body types). */
export type IncomingWebhookPayload =${union(catalogue.incomingWebhooks)};
`;
}

interface RawAsyncApi {
  info: { title: string; version: string };
  components: { schemas: Record<string, JsonSchema> };
}

async function asyncApiTypes(asyncapiPath: string, catalogue: MessageCatalogue): Promise<string> {
  const raw = parseYaml(await readFile(asyncapiPath, 'utf8')) as RawAsyncApi;
  const schemas = raw.components.schemas;
  const synthetic = {
    openapi: '3.1.0',
    info: { title: raw.info.title, version: raw.info.version },
    paths: {},
    components: { schemas },
  } as unknown as OpenAPI3;
  // The synthetic document has no paths or operations: keep only the `components` interface.
  const ast = (await openapiTS(synthetic, { silent: true })).filter(
    (node) => ts.isInterfaceDeclaration(node) && node.name.text === 'components',
  );
  const aliases = Object.keys(schemas)
    .map((name) => `export type ${identifier(name)} = components["schemas"][${JSON.stringify(name)}];`)
    .join('\n');
  return `${tsBanner(shown(asyncapiPath))}${astToString(ast)}\n${aliases}\n${messageExtras(catalogue)}`;
}

function schemaMap(messages: CataloguedMessage[]): Record<string, JsonSchema> {
  return Object.fromEntries(messages.map((message) => [message.name, message.payload]));
}

function asyncApiSchemas(asyncapiPath: string, catalogue: MessageCatalogue): string {
  const document = {
    $comment: bannerText(shown(asyncapiPath)),
    client: schemaMap(catalogue.client),
    server: schemaMap(catalogue.server),
    webhooks: {
      outgoing: schemaMap(catalogue.outgoingWebhooks),
      incoming: schemaMap(catalogue.incomingWebhooks),
    },
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

const execFileAsync = promisify(execFile);

/**
 * Redoc's bundle shows Redocly's logo from their CDN in the sidebar: a request off the service from every reader's
 * browser, when the pages must come from the service alone (docs/decisions.md §1). The image's `src` becomes an empty
 * data URL, so Redoc's own onError hides it. Icon sets on the CDN are only named, never fetched by this page; the
 * served page's Content-Security-Policy (src/modules/system/system.routes.ts) blocks anything left anyway. Fails
 * loudly if a Redoc upgrade moves the logo.
 */
const THIRD_PARTY_LOGOS = ['https://cdn.redoc.ly/redoc/logo-mini-full.svg', 'https://cdn.redoc.ly/redoc/logo-mini.svg'];

function selfContained(html: string): string {
  let out = html;
  for (const url of THIRD_PARTY_LOGOS) {
    if (!out.includes(url)) throw new Error(`docs page: Redoc no longer references ${url}; check where its logo comes from now`);
    out = out.replaceAll(url, 'data:,');
  }
  if (/cdn\.redoc\.ly|fonts\.googleapis|fonts\.gstatic/.test(out)) throw new Error('docs page: a third-party asset is still referenced');
  return out;
}

async function docsPage(openapiPath: string): Promise<string> {
  const scratch = await mkdtemp(join(tmpdir(), 'convene-docs-'));
  try {
    const output = join(scratch, 'docs.html');
    const cli = join(REPO_ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    // --inlineBundle embeds Redoc's script; without it the page imports it from the Redocly CDN.
    await execFileAsync(process.execPath, [cli, 'build-docs', openapiPath, '--inlineBundle', '-o', output], {
      cwd: REPO_ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 16 * 1024 * 1024,
    });
    const html = selfContained(await readFile(output, 'utf8'));
    return `<!-- ${bannerText(shown(openapiPath))} -->\n${html}`;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

// @asyncapi/react-component is CommonJS with React as a peer; its parser copy is the one its `unstringify` expects.
const componentRequire = createRequire(createRequire(import.meta.url).resolve('@asyncapi/react-component'));

interface AsyncApiPageModules {
  react: { createElement(type: unknown, props: Record<string, unknown>): unknown };
  server: { renderToString(element: unknown): string };
  component: { default: unknown };
  parser: {
    Parser: new () => { parse(source: string): Promise<{ document?: unknown }> };
    stringify(document: unknown): string | undefined;
  };
}

/** Keeps inlined text from closing its <script> or <style> element early. */
function inlinable(text: string): string {
  return text.replace(/<\/(script|style)/gi, '<\\/$1');
}

type Described = { summary?: unknown; description?: unknown; messages?: unknown; examples?: unknown };
const CODE_SPAN = /`([^`]+)`/g;

/**
 * The copy of the AsyncAPI document the page renders. @asyncapi/react-component renders `description` as Markdown but
 * `summary` as plain text, so a code span in a summary showed its backticks. A summary with a code span becomes the
 * first paragraph of the description of its server, channel, operation or message (rendered as code there); a message
 * example has no description, so its summary loses the backticks. The served spec/asyncapi.yaml is unchanged.
 */
export function withRenderableSummaries(document: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(document);
  const entries = (map: unknown): Described[] =>
    map && typeof map === 'object' ? (Object.values(map) as Described[]).filter((item) => item && typeof item === 'object') : [];
  const moveSummary = (item: Described) => {
    if (typeof item.summary !== 'string' || !item.summary.match(CODE_SPAN)) return;
    item.description = typeof item.description === 'string' ? `${item.summary}\n\n${item.description}` : item.summary;
    delete item.summary;
  };
  const components = (copy.components ?? {}) as Record<string, unknown>;
  const messages = [...entries(components.messages), ...entries(copy.channels).flatMap((channel) => entries(channel.messages))];
  for (const item of [
    ...entries(copy.servers),
    ...entries(copy.channels),
    ...entries(copy.operations),
    ...entries(components.servers),
    ...entries(components.channels),
    ...entries(components.operations),
    ...messages,
  ]) {
    moveSummary(item);
  }
  for (const example of messages.flatMap((message) => (Array.isArray(message.examples) ? (message.examples as Described[]) : []))) {
    if (typeof example.summary === 'string') example.summary = example.summary.replace(CODE_SPAN, '$1');
  }
  return copy;
}

async function asyncApiPage(asyncapiPath: string): Promise<string> {
  const modules = {
    react: componentRequire('react'),
    server: componentRequire('react-dom/server'),
    component: componentRequire('@asyncapi/react-component'),
    parser: componentRequire('@asyncapi/parser'),
  } as AsyncApiPageModules;
  const source = withRenderableSummaries(parseYaml(await readFile(asyncapiPath, 'utf8')) as Record<string, unknown>);
  const { document } = await new modules.parser.Parser().parse(JSON.stringify(source));
  const schema = document ? modules.parser.stringify(document) : undefined;
  if (!schema) throw new Error(`${shown(asyncapiPath)} is invalid: run node scripts/lint-asyncapi.ts`);
  const config = { show: { sidebar: true } };
  const body = modules.server.renderToString(modules.react.createElement(modules.component.default, { schema, config }));
  const asset = (path: string) => readFile(componentRequire.resolve(`@asyncapi/react-component/${path}`), 'utf8');
  const [css, script] = await Promise.all([asset('styles/default.min.css'), asset('browser/standalone/without-parser.js')]);
  const title = `${(JSON.parse(schema) as { info?: { title?: string } }).info?.title ?? 'AsyncAPI'} - AsyncAPI`;
  return `<!-- ${bannerText(shown(asyncapiPath))} -->
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${title.replace(/[<>&]/g, '')}</title>
<style>${inlinable(css)}</style>
</head>
<body>
<div id="asyncapi">${body}</div>
<script>${inlinable(script)}</script>
<script>AsyncApiStandalone.hydrate({ schema: ${inlinable(JSON.stringify(schema))}, config: ${JSON.stringify(config)} }, document.getElementById('asyncapi'));</script>
</body>
</html>
`;
}

export async function loadCatalogue(asyncapiPath: string): Promise<MessageCatalogue> {
  const { document, diagnostics } = await parseAsyncApi(asyncapiPath);
  const errors = diagnostics.filter((diagnostic) => diagnostic.severity === ERROR_SEVERITY);
  if (!document || errors.length > 0) {
    throw new Error(`${shown(asyncapiPath)} is invalid (${errors.length} errors): run node scripts/lint-asyncapi.ts`);
  }
  const catalogue = catalogueMessages(document);
  if (catalogue.problems.length > 0) {
    throw new Error(`${shown(asyncapiPath)}: ${catalogue.problems.join('; ')}`);
  }
  return catalogue;
}

/** Writes every generated file into outDir and returns their paths. */
export async function generate(options: GenerateOptions): Promise<string[]> {
  const openapiPath = resolve(options.openapiPath ?? join(REPO_ROOT, 'spec', 'openapi.yaml'));
  const asyncapiPath = resolve(options.asyncapiPath ?? join(REPO_ROOT, 'spec', 'asyncapi.yaml'));
  const catalogue = await loadCatalogue(asyncapiPath);
  // One after the other: the machine has two cores and the tests may be running beside us.
  const contents: Record<(typeof GENERATED_FILES)[number], string> = {
    'openapi.ts': await openApiTypes(openapiPath),
    'asyncapi.ts': await asyncApiTypes(asyncapiPath, catalogue),
    'asyncapi-schemas.json': asyncApiSchemas(asyncapiPath, catalogue),
    'docs.html': await docsPage(openapiPath),
    'asyncapi.html': await asyncApiPage(asyncapiPath),
  };
  await mkdir(options.outDir, { recursive: true });
  const written: string[] = [];
  for (const name of GENERATED_FILES) {
    const path = join(options.outDir, name);
    await writeFile(path, contents[name]);
    written.push(path);
  }
  return written;
}

export function parseArgs(argv: string[]): GenerateOptions {
  const options: GenerateOptions = { outDir: join(REPO_ROOT, 'generated') };
  for (let index = 0; index < argv.length; index += 2) {
    const [flag, value] = [argv[index], argv[index + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--out') options.outDir = resolve(value);
    else if (flag === '--openapi') options.openapiPath = resolve(value);
    else if (flag === '--asyncapi') options.asyncapiPath = resolve(value);
    else throw new Error(`unknown option ${flag} (expected --out, --openapi, --asyncapi)`);
  }
  return options;
}

if (import.meta.main) {
  const started = performance.now();
  const written = await generate(parseArgs(process.argv.slice(2)));
  for (const path of written) console.log(`wrote ${shown(path)}`);
  console.log(`generated ${written.length} files in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
