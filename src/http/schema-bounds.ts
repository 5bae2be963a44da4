import type { RequestHandler } from 'express';
import { MAX_LISTED_VIOLATIONS, schemaViolations, type ErrorDetail } from '../domain/errors.ts';
import { escapePointer } from './input-guard.ts';
import { literalSegmentsFirst, specPathPattern } from './methods.ts';
import type { OpenApiDocument, SpecOperation } from './spec.ts';

/**
 * The counts of a request body, checked along its operation's schema before the OpenAPI validator sees it
 * (docs/decisions.md §16: every request is cheap to refuse). Ajv, asked for every violation (`allErrors`, so every
 * field is named, §3), validates every item of an array that is already too long and reports each unknown field:
 * half a million wrong items held the event loop for minutes. This walk refuses, with at most 20 details, a body
 * that has
 * - an array longer than its `maxItems` (its items are not looked at),
 * - a string longer than its `maxLength` (no pattern or format runs on a megabyte),
 * - or more unknown fields of closed objects (`additionalProperties: false`) than `details` can list;
 * so what reaches Ajv is bounded by the contract itself (every array of a request has a `maxItems`, checked by
 * test/unit/http/schema-bounds.test.ts) and its error list stays short. Nesting and the count of values were bounded
 * before parsing (json-shape.ts). A body that breaks none of these goes to the validator unchanged, which names every
 * violation.
 *
 * The walk only refuses what the schema surely refuses: under `oneOf`/`anyOf` it follows the one branch whose type
 * fits the value and stops when several could; a value of the wrong type is left to the validator (one violation).
 */

type Schema = Record<string, any>;

/** Violations found by the walk; `costly` when one of them is a bound that makes validation expensive. */
class Findings {
  readonly issues: ErrorDetail[] = [];
  costly = false;
  moreFound = false;

  add(path: string, message: string, costly: boolean): void {
    this.costly ||= costly;
    if (this.issues.length < MAX_LISTED_VIOLATIONS) this.issues.push({ path, message });
    else this.moreFound = true;
  }

  get full(): boolean {
    return this.moreFound;
  }

  /** Refuse here when validation would be expensive, or when there is more to say than `details` can list. */
  get refuse(): boolean {
    return this.costly || this.issues.length >= MAX_LISTED_VIOLATIONS;
  }
}

/** The violations of `value`'s bounds under `schema` (refs resolved in `doc`), and whether they decide the request. */
export function checkBounds(value: unknown, schema: Schema, doc: OpenApiDocument, path = '/body'): { refuse: boolean; issues: ErrorDetail[]; moreFound: boolean } {
  const findings = new Findings();
  walk(value, schema, path, findings, refResolver(doc));
  return { refuse: findings.refuse, issues: findings.issues, moreFound: findings.moreFound };
}

function walk(value: unknown, given: Schema, path: string, findings: Findings, resolve: (s: Schema) => Schema): void {
  if (findings.full) return;
  const schema = resolve(given);
  for (const part of schema.allOf ?? []) walk(value, part, path, findings, resolve);
  const union: Schema[] | undefined = schema.oneOf ?? schema.anyOf;
  if (union) {
    const fitting = union.map(resolve).filter((branch) => typeFits(branch, value));
    if (fitting.length === 1) walk(value, fitting[0]!, path, findings, resolve);
  }
  if (!typeFits(schema, value)) return;

  if (typeof value === 'string') {
    if (typeof schema.maxLength === 'number' && longerThan(value, schema.maxLength)) {
      findings.add(path, `must NOT have more than ${schema.maxLength} characters`, true);
    }
  } else if (Array.isArray(value)) {
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
      findings.add(path, `must NOT have more than ${schema.maxItems} items`, true);
      return;
    }
    if (schema.items) for (let i = 0; i < value.length && !findings.full; i++) walk(value[i], schema.items, `${path}/${i}`, findings, resolve);
  } else if (value !== null && typeof value === 'object') {
    const properties: Schema = schema.properties ?? {};
    const closed = schema.additionalProperties === false && !schema.patternProperties;
    if (!schema.properties && !closed) return; // nothing to check here (e.g. the oneOf around a branch, walked above)
    const object = value as Record<string, unknown>;
    for (const key in object) {
      if (findings.full) return;
      const child = `${path}/${escapePointer(key)}`;
      if (Object.hasOwn(properties, key)) walk(object[key], properties[key], child, findings, resolve);
      else if (closed) findings.add(child, 'must NOT have additional properties', false);
    }
  }
}

/** Whether the schema's `type` (absent, a name or a list of names) admits the value's JSON type. */
function typeFits(schema: Schema, value: unknown): boolean {
  if (schema.type === undefined) return true;
  const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return types.some((t) => t === actual || (t === 'integer' && actual === 'number'));
}

/** Whether a string has more than `max` code points (Ajv counts code points); stops counting past `max`. */
function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) i++; // a surrogate pair is one code point
    if (++count > max) return true;
  }
  return false;
}

/** Follows local `$ref`s (`#/components/schemas/X`) in the loaded document; a schema without one is returned as is. */
function refResolver(doc: OpenApiDocument): (schema: Schema) => Schema {
  return (schema) => {
    let current = schema;
    for (let hops = 0; typeof current?.$ref === 'string' && hops < 32; hops++) {
      const ref: string = current.$ref;
      current = ref
        .slice(2)
        .split('/')
        .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
        .reduce<any>((node, part) => node?.[part], doc);
    }
    return current ?? {};
  };
}

interface BodyRoute {
  method: string;
  pattern: RegExp;
  schema: Schema;
}

/**
 * Middleware: after the JSON body parser, before the OpenAPI validator. Finds the request's operation as the validator
 * does (Express's default routing: case-insensitive, an optional trailing slash) and checks its body's bounds.
 */
export function schemaBounds(doc: OpenApiDocument, operations: SpecOperation[]): RequestHandler {
  const routes: BodyRoute[] = [...operations]
    .sort((a, b) => literalSegmentsFirst(a.path, b.path))
    .flatMap((op) => {
      const schema = doc.paths[op.path]?.[op.method]?.requestBody?.content?.['application/json']?.schema;
      return schema ? [{ method: op.method.toUpperCase(), pattern: specPathPattern(op.path, 'i'), schema }] : [];
    });
  return (req, _res, next) => {
    if (req.body === undefined || req.body === null || typeof req.body !== 'object' || Buffer.isBuffer(req.body)) return next();
    const route = routes.find((r) => r.method === req.method && r.pattern.test(req.path));
    if (!route) return next();
    const { refuse, issues, moreFound } = checkBounds(req.body, route.schema, doc);
    next(refuse ? schemaViolations(issues, moreFound) : undefined);
  };
}
