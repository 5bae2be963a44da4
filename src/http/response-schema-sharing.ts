import { createRequire } from 'node:module';

/**
 * One compilation of the contract for response validation (VALIDATE_RESPONSES: on in the tests, off by default in
 * production). express-openapi-validator (5.6, dist/middlewares/openapi.response.validator.js `buildValidators`) makes a
 * validator per route, status and media type, each a new root schema with the whole spec's `paths` and `components`
 * attached: Ajv walks the whole spec again and compiles every component the response reaches again, for each of them.
 * In the integration tests that was about a quarter of a test file's CPU (BENCHMARKS.md, "Test suite").
 *
 * The library reads `useAjvCache` off its util module's exports at each call, so wrapping that export here lets a
 * response schema that sits in the spec be compiled as a `$ref` into one copy of the spec, added once to the validator's
 * Ajv. The components it reaches then compile once per Ajv, as functions the validators call (`inlineRefs: false`),
 * not as code repeated in each. What a validator accepts does not change: the same schema object, reached by reference
 * (test/unit/http/response-schema-sharing.test.ts compares verdicts with and without). A schema the wrapper does not
 * recognise goes to the library's own path unchanged.
 */

// Absolute, so a `$ref` to it never resolves against the key of the validator that refers to it (a relative path).
const SPEC_KEY = 'urn:convene:response-validation-spec';

interface AjvLike {
  opts: { inlineRefs?: boolean | number };
  addSchema(schema: object, key: string): unknown;
}

type UseAjvCache = (ajv: AjvLike, schema: unknown, key: string) => unknown;

interface SpecParts {
  paths: Record<string, Record<string, unknown>>;
  components?: { responses?: Record<string, unknown> };
}

/** Per Ajv instance: where each response content schema sits in the spec added to it (URI-fragment JSON pointers). */
const pointersByAjv = new WeakMap<AjvLike, Map<object, string>>();
let compiledByReference = 0;
let installed = false;

export function shareResponseSchemaCompilation(): void {
  if (installed) return;
  installed = true;
  const requireFromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const util = requireFromValidator('./middlewares/util.js') as { useAjvCache: UseAjvCache };
  const useAjvCache = util.useAjvCache;
  util.useAjvCache = (ajv, schema, key) => useAjvCache(ajv, byReference(ajv, schema) ?? schema, key);
}

/** How many response validators were compiled by reference into the shared spec (for the test that this still works). */
export function responseValidatorsCompiledByReference(): number {
  return compiledByReference;
}

/**
 * The library's response root `{ type: 'object', properties: { response }, paths, components }` as a reference into the
 * shared spec; undefined for any other schema (request validators use the same cache with other shapes).
 */
function byReference(ajv: AjvLike, schema: unknown): object | undefined {
  if (!isResponseRoot(schema)) return undefined;
  let pointers = pointersByAjv.get(ajv);
  if (!pointers) {
    const spec: SpecParts = { paths: schema.paths, components: schema.components };
    pointers = responsePointers(spec);
    ajv.opts.inlineRefs = false;
    ajv.addSchema(spec, SPEC_KEY);
    pointersByAjv.set(ajv, pointers);
  }
  const pointer = pointers.get(schema.properties.response);
  if (pointer === undefined) return undefined;
  compiledByReference += 1;
  return { type: 'object', properties: { response: { $ref: `${SPEC_KEY}#${pointer}` } } };
}

function isResponseRoot(schema: unknown): schema is SpecParts & { properties: { response: object } } {
  if (typeof schema !== 'object' || schema === null) return false;
  const root = schema as Record<string, any>;
  return (
    typeof root.paths === 'object' &&
    typeof root.properties?.response === 'object' &&
    Object.keys(root.properties).length === 1 &&
    Object.keys(root).every((k) => ['type', 'properties', 'paths', 'components'].includes(k))
  );
}

/** Every response content schema of the operations and of `components.responses`, by object identity. */
function responsePointers(spec: SpecParts): Map<object, string> {
  const escape = (part: string) => encodeURIComponent(part.replaceAll('~', '~0').replaceAll('/', '~1'));
  const pointers = new Map<object, string>();
  const visit = (responses: unknown, prefix: string) => {
    for (const [status, response] of Object.entries((responses ?? {}) as Record<string, any>)) {
      for (const [mediaType, media] of Object.entries((response?.content ?? {}) as Record<string, any>)) {
        if (typeof media?.schema === 'object' && media.schema !== null && !pointers.has(media.schema)) {
          pointers.set(media.schema, `${prefix}/${escape(status)}/content/${escape(mediaType)}/schema`);
        }
      }
    }
  };
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, operation] of Object.entries(item ?? {})) {
      const responses = (operation as { responses?: unknown } | null)?.responses;
      if (responses) visit(responses, `/paths/${escape(path)}/${escape(method)}/responses`);
    }
  }
  visit(spec.components?.responses, '/components/responses');
  return pointers;
}
