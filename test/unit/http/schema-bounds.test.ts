import { MAX_LISTED_VIOLATIONS, schemaViolations } from '../../../src/domain/errors.ts';
import { costlyJsonShape, MAX_JSON_NESTING, MAX_JSON_VALUES } from '../../../src/http/json-shape.ts';
import { checkBounds } from '../../../src/http/schema-bounds.ts';
import { loadOpenApi } from '../../../src/http/spec.ts';

// docs/decisions.md §16: the bounds checked before the OpenAPI validator, on the contract's own schemas.
const doc = loadOpenApi();
const requestSchema = (path: string, method: string) => doc.paths[path]![method].requestBody.content['application/json'].schema;
const bulk = requestSchema('/api/v1/rooms/{id}/participants/bulk', 'post');
const createRoom = requestSchema('/api/v1/rooms', 'post');
const configPatch = requestSchema('/api/v1/tenants/{id}/config', 'patch');

const resolve = (schema: any): any => (schema?.$ref ? resolve(schema.$ref.slice(2).split('/').reduce((n: any, p: string) => n[p], doc)) : schema);
const requestBodies = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries<any>(item).flatMap(([method, op]) => Object.values<any>(op?.requestBody?.content ?? {}).map((media) => ({ where: `${method} ${path}`, schema: media.schema }))),
);

describe('every array a request can carry has a maxItems (so the walk can refuse it on that count)', () => {
  /** Where (in the document) array schemas without maxItems are, reachable from `schema`. */
  function unbounded(schema: any, where: string, seen: Set<any>, found: string[]): string[] {
    const s = resolve(schema);
    if (!s || typeof s !== 'object' || seen.has(s)) return found;
    seen.add(s);
    if ((s.type === 'array' || (Array.isArray(s.type) && s.type.includes('array')) || s.items) && typeof s.maxItems !== 'number') found.push(where);
    for (const [key, child] of Object.entries<any>(s.properties ?? {})) unbounded(child, `${where}/properties/${key}`, seen, found);
    for (const key of ['items', 'additionalProperties'] as const) if (typeof s[key] === 'object') unbounded(s[key], `${where}/${key}`, seen, found);
    for (const key of ['oneOf', 'anyOf', 'allOf'] as const) (s[key] ?? []).forEach((c: any, i: number) => unbounded(c, `${where}/${key}/${i}`, seen, found));
    return found;
  }

  test('request bodies and parameters of every operation', () => {
    const found: string[] = [];
    for (const { where, schema } of requestBodies) unbounded(schema, where, new Set(), found);
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const param of [...(item.parameters ?? []), ...(op?.parameters ?? [])]) unbounded(resolve(param).schema, `${method} ${path} ${resolve(param).name}`, new Set(), found);
      }
    }
    expect(found).toEqual([]);
  });

  test(`the largest valid request body holds well under ${MAX_JSON_VALUES} values (the count refused before parsing)`, () => {
    /** The most values (arrays, objects and members, as json-shape.ts counts them) a value valid under `schema` can hold. */
    const most = (schema: any, seen: Set<any>): number => {
      const s = resolve(schema);
      if (seen.has(s)) return Infinity; // a recursive schema would be unbounded
      const inner = new Set(seen).add(s);
      const branches = [...(s.oneOf ?? []), ...(s.anyOf ?? [])].map((b: any) => most(b, inner));
      const own = s.items ? 1 + s.maxItems * most(s.items, inner) : s.properties ? 1 + Object.values(s.properties).reduce<number>((n, p) => n + most(p, inner), 0) : 1;
      return Math.max(own, ...branches);
    };
    const largest = Math.max(...requestBodies.map(({ schema }) => most(schema, new Set())));
    expect(largest).toBeGreaterThan(100); // a bulk add of 100 entries
    expect(largest).toBeLessThanOrEqual(MAX_JSON_VALUES / 2);
  });
});

describe('checkBounds', () => {
  test('an array over maxItems is refused on that count, its items never looked at', () => {
    const result = checkBounds({ participants: Array.from({ length: 5_000 }, () => 1) }, bulk, doc);
    expect(result).toEqual({ refuse: true, issues: [{ path: '/body/participants', message: 'must NOT have more than 100 items' }], moreFound: false });
  });

  test('a string over maxLength is refused (code points, as the validator counts them)', () => {
    expect(checkBounds({ name: 'x'.repeat(101) }, createRoom, doc)).toMatchObject({ refuse: true, issues: [{ path: '/body/name' }] });
    // 100 emoji are 200 UTF-16 units but 100 characters: within the bound.
    expect(checkBounds({ name: '😀'.repeat(100) }, createRoom, doc)).toEqual({ refuse: false, issues: [], moreFound: false });
  });

  test('inside a oneOf, the branch the value fits is followed', () => {
    const result = checkBounds({ post_meeting_webhook: { url: `https://${'a'.repeat(5000)}` } }, configPatch, doc);
    expect(result).toMatchObject({ refuse: true, issues: [{ path: '/body/post_meeting_webhook/url', message: 'must NOT have more than 2048 characters' }] });
  });

  test('unknown fields: a few are left to the validator (which names every violation), more than details can list are refused', () => {
    expect(checkBounds({ name: 'r', extra: 1 }, createRoom, doc)).toEqual({ refuse: false, issues: [{ path: '/body/extra', message: 'must NOT have additional properties' }], moreFound: false });
    const many = Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, 0]));
    const result = checkBounds({ post_meeting_webhook: many }, configPatch, doc);
    expect(result.refuse).toBe(true);
    expect(result.moreFound).toBe(true);
    expect(result.issues).toHaveLength(MAX_LISTED_VIOLATIONS);
    expect(result.issues[0]).toEqual({ path: '/body/post_meeting_webhook/k0', message: 'must NOT have additional properties' });
  });

  test('a key is named as a JSON pointer', () => {
    expect(checkBounds({ name: 'r', 'a/b~c': 1 }, createRoom, doc).issues).toEqual([{ path: '/body/a~1b~0c', message: 'must NOT have additional properties' }]);
  });

  test('a body within every bound has no findings, also with full arrays', () => {
    const participants = Array.from({ length: 100 }, (_, i) => ({ display_name: `p${i}` }));
    expect(checkBounds({ participants }, bulk, doc)).toEqual({ refuse: false, issues: [], moreFound: false });
  });
});

describe('schemaViolations lists at most 20', () => {
  const issues = (n: number) => Array.from({ length: n }, (_, i) => ({ path: `/body/k${i}`, message: 'must NOT have additional properties' }));

  test('20 or fewer are listed as they are', () => {
    expect(schemaViolations(issues(20)).details).toEqual(issues(20));
  });

  test('past 20, the first 19 and a last entry saying that more were cut', () => {
    const details = schemaViolations(issues(1_000)).details as Array<{ path: string; message: string }>;
    expect(details).toHaveLength(MAX_LISTED_VIOLATIONS);
    expect(details.slice(0, 19)).toEqual(issues(19));
    expect(details[19]!.message).toMatch(/more violations were found/);
  });
});

describe('costlyJsonShape (the raw-byte scan before JSON.parse)', () => {
  const shape = (text: string, nesting = MAX_JSON_NESTING, values = MAX_JSON_VALUES) => costlyJsonShape(Buffer.from(text, 'utf8'), nesting, values);
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  test('32 levels pass, 33 do not', () => {
    expect(shape(nested(MAX_JSON_NESTING))).toBeUndefined();
    expect(shape(nested(MAX_JSON_NESTING + 1))).toBe('must not nest arrays and objects deeper than 32 levels');
    expect(shape(`{"a":${'{"a":'.repeat(40)}1${'}'.repeat(41)}`)).toMatch(/deeper than 32/);
  });

  test(`${MAX_JSON_VALUES} values pass, one more does not, in one array or spread over many`, () => {
    expect(shape(`[${Array(MAX_JSON_VALUES - 1).fill(1).join(',')}]`)).toBeUndefined();
    expect(shape(`[${Array(MAX_JSON_VALUES).fill(1).join(',')}]`)).toBe(`must not hold more than ${MAX_JSON_VALUES} values in all`);
    expect(shape(`{"a":[${Array(MAX_JSON_VALUES).fill('{}').join(',')}]}`)).toMatch(/more than/);
  });

  test('brackets and commas inside strings do not count, escaped quotes do not end the string', () => {
    expect(shape(JSON.stringify({ a: '[,'.repeat(5000) }), 2, 10)).toBeUndefined();
    expect(shape(JSON.stringify({ a: `"\\${'{'.repeat(100)}` }), 2)).toBeUndefined();
    // A string that ends in a backslash: the brackets after it are real ones.
    expect(shape(`{"a":"x\\\\","b":${nested(5)}}`, 4)).toMatch(/deeper than 4/);
  });
});
