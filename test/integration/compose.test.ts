// docker-compose.yml against the Compose Specification's JSON schema (vendored in ./compose-spec/, README there),
// with ajv: no Docker engine needed, so `npm test` catches a misspelt key or a wrong value type before `docker compose`
// does.
import { Ajv2019 } from 'ajv/dist/2019.js';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

type JsonObject = Record<string, any>;

function composeValidator() {
  const schema = JSON.parse(readFileSync(new URL('./compose-spec/compose-spec.json', import.meta.url), 'utf8')) as JsonObject;
  // The vendored 2021 snapshot lacks the top-level project `name` (added to the specification in 2022); this is the
  // specification's own definition of it, and the only change.
  schema.properties.name = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' };
  // The snapshot declares draft 2019-09 with a trailing `#` and old-style `id` keywords: validate it as 2019-09, and
  // treat `id` as the annotation it is here (every $ref is a local JSON pointer).
  const ajv = new Ajv2019({ allErrors: true, strict: false, validateSchema: false });
  ajv.removeKeyword('id');
  addFormats.default(ajv);
  // Compose's own formats, as compose-go reads them: durations are Go durations ("5s", "1m30s"), not ISO 8601.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
  // Port and subnet strings have grammars compose-go checks itself; the schema only names them.
  for (const name of ['ports', 'expose', 'subnet_ip_address']) ajv.addFormat(name, true);
  return ajv.compile(schema);
}

const validate = composeValidator();
const composeFile = () => parse(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8'), { merge: true }) as JsonObject;

test('docker-compose.yml follows the Compose Specification', () => {
  const ok = validate(composeFile());
  expect(validate.errors ?? []).toEqual([]);
  expect(ok).toBe(true);
});

test.each([
  ['a misspelt service key', (doc: JsonObject) => (doc.services.api.enviroment = {}), '/services/api'],
  ['an unknown depends_on condition', (doc: JsonObject) => (doc.services.api.depends_on.postgres.condition = 'service_ready'), '/services/api/depends_on/postgres/condition'],
  ['a healthcheck interval that is not a duration', (doc: JsonObject) => (doc.services.postgres.healthcheck.interval = 'five seconds'), '/services/postgres/healthcheck/interval'],
  ['a project name with capitals', (doc: JsonObject) => (doc.name = 'Convene'), '/name'],
])('the schema check catches %s', (_what, breakIt, path) => {
  const doc = composeFile();
  breakIt(doc);
  expect(validate(doc)).toBe(false);
  expect(validate.errors?.map((error) => error.instancePath)).toContain(path);
});

test('only the API is published beyond loopback, and its /metrics needs a token', () => {
  const doc = composeFile();
  const published = Object.entries(doc.services as JsonObject).flatMap(([service, spec]) =>
    ((spec as JsonObject).ports ?? []).map((port: string) => ({ service, port })),
  );
  // Temporal (gRPC, UI) and SeaweedFS's S3 have no login worth the name: 127.0.0.1 only (docs/decisions.md §13).
  expect(published.filter(({ service, port }) => service !== 'api' && !port.startsWith('127.0.0.1:'))).toEqual([]);
  expect(published.map(({ service }) => service).sort()).toEqual(['api', 'seaweedfs', 'temporal', 'temporal-ui']);
  expect(doc.services.api.environment.METRICS_TOKEN).toMatch(/^\$\{METRICS_TOKEN:\?/);
});
