import { requireAsValidator } from './validator-internals.ts';

/**
 * One compilation of the contract per validator, for express-openapi-validator (5.6). It makes a validator per
 * operation's parameters, per request body, and (with VALIDATE_RESPONSES: on in the tests, off by default in production)
 * per route, status and media type of the responses; each is a new root schema with the whole spec's `paths` and
 * `components` attached (dist/middlewares/openapi.request.validator.js `Validator`, openapi.response.validator.js
 * `buildValidators`). So Ajv walks the whole spec again and compiles every component the schema reaches again, for each
 * of them: in the integration tests, about a quarter of a test file's CPU (BENCHMARKS.md, "The test suite's time").
 *
 * The library reads `useAjvCache` off its util module's exports at each call (as route-cache.ts relies on for
 * path-to-regexp), so wrapping that export here hands Ajv, instead of such a root, a copy of the root without `paths`
 * and `components` whose local `$ref`s point into one copy of the spec, added once to that Ajv. The components then
 * compile once per Ajv, as functions the validators call (`inlineRefs: false`), not as code repeated in each. A `$ref`
 * from a validator's own root is compiled for that validator, so it goes through a one-line entry of the shared copy's
 * `refs` table (`{ $ref: '#/components/schemas/Room' }`), and what that entry reaches is compiled once. What a
 * validator accepts does not change: the same schemas, reached by reference (test/unit/http/validator-schema-sharing.test.ts
 * compares verdicts with and without). A schema of another shape goes to the library's own path unchanged.
 */

// Absolute, so a `$ref` to it never resolves against the key of the validator that refers to it (a relative path).
const SPEC_KEY = 'urn:convene:validator-spec';

interface AjvLike {
  opts: { inlineRefs?: boolean | number };
  addSchema(schema: object, key: string): unknown;
}

type UseAjvCache = (ajv: AjvLike, schema: unknown, key: string) => unknown;

interface LibraryRoot {
  paths: object;
  components: object;
  [keyword: string]: unknown;
}

/** Per Ajv: the spec's `paths` object added to it (a root with other paths is left to the library), and its `refs` table. */
const specOf = new WeakMap<AjvLike, { paths: object; refs: Set<string> }>();
let compiledByReference = 0;
let installed = false;
let sharing = false;

/**
 * Turns the sharing on for validators built from now on in this process (the library's module is one per process);
 * `false` leaves them to the library's own compilation, for the test that compares the two in one process.
 */
export function shareValidatorSchemaCompilation(enabled = true): void {
  sharing = enabled;
  if (installed) return;
  installed = true;
  const util = requireAsValidator<{ useAjvCache: UseAjvCache }>('./middlewares/util.js');
  const useAjvCache = util.useAjvCache;
  util.useAjvCache = (ajv, schema, key) => useAjvCache(ajv, (sharing && byReference(ajv, schema)) || schema, key);
}

/** How many validators were compiled by reference into the shared spec (for the test that this still works). */
export function validatorsCompiledByReference(): number {
  return compiledByReference;
}

function byReference(ajv: AjvLike, schema: unknown): object | undefined {
  if (!isLibraryRoot(schema)) return undefined;
  const { paths, components, ...own } = schema;
  let added = specOf.get(ajv);
  if (added !== undefined && added.paths !== paths) return undefined;
  if (added === undefined) {
    // Every local reference the spec makes, each an entry of the table: what a validator's root refers to is among them.
    const refs = new Set<string>();
    collectLocalRefs({ paths, components }, refs, new Set());
    const table = Object.fromEntries([...refs].map((ref) => [ref, { $ref: ref }]));
    ajv.opts.inlineRefs = false;
    ajv.addSchema({ paths, components, refs: table }, SPEC_KEY);
    added = { paths, refs };
    specOf.set(ajv, added);
  }
  const copy = withSharedRefs(own, added.refs, new Set());
  if (copy === undefined) return undefined;
  compiledByReference += 1;
  return copy as object;
}

function isLibraryRoot(schema: unknown): schema is LibraryRoot {
  if (typeof schema !== 'object' || schema === null) return false;
  const root = schema as Record<string, unknown>;
  return typeof root.paths === 'object' && root.paths !== null && typeof root.components === 'object' && root.components !== null;
}

function collectLocalRefs(node: unknown, refs: Set<string>, seen: Set<object>): void {
  if (typeof node !== 'object' || node === null || seen.has(node)) return;
  seen.add(node);
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/')) refs.add(value);
    else collectLocalRefs(value, refs, seen);
  }
}

/** The shared spec's place for a local reference: its `refs` entry when it has one, else the place itself. */
function sharedRef(ref: string, table: Set<string>): string {
  const escaped = encodeURIComponent(ref.replaceAll('~', '~0').replaceAll('/', '~1'));
  return table.has(ref) ? `${SPEC_KEY}#/refs/${escaped}` : `${SPEC_KEY}${ref}`;
}

/** A deep copy with every local `$ref` ("#/components/…", "#/paths/…") made to point into the shared spec; undefined on a cycle. */
function withSharedRefs(node: unknown, table: Set<string>, ancestors: Set<object>): unknown {
  if (typeof node !== 'object' || node === null) return node;
  if (ancestors.has(node)) return undefined;
  ancestors.add(node);
  try {
    if (Array.isArray(node)) {
      const items = node.map((item) => withSharedRefs(item, table, ancestors));
      return items.some((item, i) => item === undefined && node[i] !== undefined) ? undefined : items;
    }
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/')) {
        copy[key] = sharedRef(value, table);
        continue;
      }
      const copied = withSharedRefs(value, table, ancestors);
      if (copied === undefined && value !== undefined) return undefined;
      copy[key] = copied;
    }
    return copy;
  } finally {
    ancestors.delete(node);
  }
}
