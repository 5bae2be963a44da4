import { createRequire } from 'node:module';

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
 * compile once per Ajv, as functions the validators call (`inlineRefs: false`), not as code repeated in each. What a
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

/** The spec's `paths` object added to each Ajv: a root with other paths (another spec) is left to the library. */
const specOf = new WeakMap<AjvLike, object>();
let compiledByReference = 0;
let installed = false;

export function shareValidatorSchemaCompilation(): void {
  if (installed) return;
  installed = true;
  const requireFromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const util = requireFromValidator('./middlewares/util.js') as { useAjvCache: UseAjvCache };
  const useAjvCache = util.useAjvCache;
  util.useAjvCache = (ajv, schema, key) => useAjvCache(ajv, byReference(ajv, schema) ?? schema, key);
}

/** How many validators were compiled by reference into the shared spec (for the test that this still works). */
export function validatorsCompiledByReference(): number {
  return compiledByReference;
}

function byReference(ajv: AjvLike, schema: unknown): object | undefined {
  if (!isLibraryRoot(schema)) return undefined;
  const { paths, components, ...own } = schema;
  const added = specOf.get(ajv);
  if (added !== undefined && added !== paths) return undefined;
  const copy = withSharedRefs(own, new Set());
  if (copy === undefined) return undefined;
  if (added === undefined) {
    ajv.opts.inlineRefs = false;
    ajv.addSchema({ paths, components }, SPEC_KEY);
    specOf.set(ajv, paths);
  }
  compiledByReference += 1;
  return copy as object;
}

function isLibraryRoot(schema: unknown): schema is LibraryRoot {
  if (typeof schema !== 'object' || schema === null) return false;
  const root = schema as Record<string, unknown>;
  return typeof root.paths === 'object' && root.paths !== null && typeof root.components === 'object' && root.components !== null;
}

/** A deep copy with every local `$ref` ("#/components/…", "#/paths/…") made to point into the shared spec; undefined on a cycle. */
function withSharedRefs(node: unknown, ancestors: Set<object>): unknown {
  if (typeof node !== 'object' || node === null) return node;
  if (ancestors.has(node)) return undefined;
  ancestors.add(node);
  try {
    if (Array.isArray(node)) {
      const items = node.map((item) => withSharedRefs(item, ancestors));
      return items.some((item, i) => item === undefined && node[i] !== undefined) ? undefined : items;
    }
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/')) {
        copy[key] = `${SPEC_KEY}${value}`;
        continue;
      }
      const copied = withSharedRefs(value, ancestors);
      if (copied === undefined && value !== undefined) return undefined;
      copy[key] = copied;
    }
    return copy;
  } finally {
    ancestors.delete(node);
  }
}
