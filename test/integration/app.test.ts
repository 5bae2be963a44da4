import { parse } from 'yaml';
import { ADMIN_KEY, createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('request ids', () => {
  test('every response carries X-Request-Id, also errors', async () => {
    const ok = await t.request.get('/healthz');
    expect(ok.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const err = await t.request.get('/api/v1/nowhere');
    expect(err.status).toBe(404);
    expect(err.body.error).toMatchObject({ code: 'NOT_FOUND', request_id: err.headers['x-request-id'] });
  });

  test('a safe incoming id is kept; an unsafe one is replaced', async () => {
    expect((await t.request.get('/healthz').set('X-Request-Id', 'abc-123')).headers['x-request-id']).toBe('abc-123');
    const replaced = (await t.request.get('/healthz').set('X-Request-Id', 'evil\tinjected value')).headers['x-request-id'];
    expect(replaced).not.toContain('evil');
  });
});

describe('request bodies', () => {
  test('over 1 MiB is 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await t.request.post('/api/v1/auth/token').set('Content-Type', 'application/json').send(JSON.stringify({ api_key: 'x'.repeat(1024 * 1024 + 10) }));
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  test('not JSON is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await t.request.post('/api/v1/auth/token').set('Content-Type', 'text/plain').send('api_key=x');
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  test('malformed JSON is 400 VALIDATION_ERROR', async () => {
    const res = await t.request.post('/api/v1/auth/token').set('Content-Type', 'application/json').send('{"api_key":');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  test('unknown query parameters are refused', async () => {
    const res = await t.request.get('/healthz?debug=1');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('probes and published contract', () => {
  test('/healthz and /readyz report every dependency', async () => {
    expect((await t.request.get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await t.request.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { database: 'ok', temporal: 'ok', storage: 'ok' } });
  });

  test('/readyz is 503 and names the part that is down', async () => {
    const broken = await createTestApp({ S3_ENDPOINT: 'http://127.0.0.1:9', TEMPORAL_ADDRESS: '127.0.0.1:9' });
    try {
      const res = await broken.request.get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'error', checks: { database: 'ok', temporal: 'error', storage: 'error' } });
    } finally {
      await broken.close();
    }
  });

  test('the OpenAPI and AsyncAPI documents and the docs page are served', async () => {
    const openapi = await t.request.get('/api/v1/openapi.yaml');
    expect(openapi.status).toBe(200);
    expect(parse(openapi.text).openapi).toMatch(/^3\.1/);
    const asyncapi = await t.request.get('/api/v1/asyncapi.yaml');
    expect(parse(asyncapi.text).asyncapi).toMatch(/^3\./);
    const docs = await t.request.get('/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers['content-type']).toMatch(/text\/html/);
    expect(docs.text).toContain('Convene');
    expect(docs.text).toContain('/docs/asyncapi');

    // The AsyncAPI page: rendered ahead of time (readable before its script runs), self-contained (docs/decisions.md §12).
    const asyncapiDocs = await t.request.get('/docs/asyncapi');
    expect(asyncapiDocs.status).toBe(200);
    expect(asyncapiDocs.headers['content-type']).toMatch(/text\/html/);
    expect(asyncapiDocs.text).toContain('Convene realtime and webhook events');
    expect(asyncapiDocs.text).toMatch(/class="aui-root"[\s\S]*chat\.message/);
    expect(asyncapiDocs.text).not.toMatch(/<(script|link|img)[^>]+(src|href)="(https?:)?\/\//i);
    const styles = [...asyncapiDocs.text.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1]).join('');
    expect(styles.length).toBeGreaterThan(1000);
    expect(styles).not.toMatch(/@import|url\((['"]?)(https?:)?\/\//i);
  });
});

test('a tenant over its request rate gets 429 RATE_LIMITED with Retry-After; other tenants are unaffected', async () => {
  const limited = await createTestApp({ RATE_LIMIT_PER_MINUTE: '5' });
  try {
    const make = async (name: string) => (await limited.request.post('/api/v1/tenants').set('X-Admin-Key', ADMIN_KEY).send({ name })).body.data;
    const busy = await make('busy');
    const calm = await make('calm');
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await limited.request.get(`/api/v1/tenants/${busy.id}`).set('X-API-Key', busy.api_key)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const refused = await limited.request.get(`/api/v1/tenants/${busy.id}`).set('X-API-Key', busy.api_key);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await limited.request.get(`/api/v1/tenants/${calm.id}`).set('X-API-Key', calm.api_key)).status).toBe(200);
  } finally {
    await limited.close();
  }
});

// A larger limit is claimed from the database in blocks (src/http/rate-limit.ts): concurrent requests still get exactly
// the limit, the RateLimit header counts down to zero, and the window is one row holding at least what was served.
test('under a concurrent burst a tenant gets exactly its limit; the window is counted in blocks', async () => {
  const limit = 300;
  const limited = await createTestApp({ RATE_LIMIT_PER_MINUTE: String(limit) });
  try {
    // The windows are whole minutes of the database clock. No wall-clock guess about how long the burst takes on a
    // busy machine: a burst that straddled two windows (the database's minute changed under it) is made again, by a
    // fresh tenant.
    const minute = async () => String((await limited.services.orm.em.getConnection().execute("select date_trunc('minute', now()) as m"))[0].m);
    let tenant: { id: string; api_key: string };
    let responses: Awaited<ReturnType<typeof limited.request.get>>[];
    for (let attempt = 1; ; attempt++) {
      tenant = (await limited.request.post('/api/v1/tenants').set('X-Admin-Key', ADMIN_KEY).send({ name: `burst-${attempt}` })).body.data;
      const before = await minute();
      const begun = Date.now();
      responses = [];
      for (let batch = 0; batch < 8; batch++) {
        responses.push(...(await Promise.all(Array.from({ length: 50 }, () => limited.request.get('/api/v1/rooms').set('X-API-Key', tenant.api_key)))));
      }
      const straddled = (await minute()) !== before;
      console.log(`[rate-limit burst] attempt ${attempt}: 400 requests in ${Date.now() - begun} ms${straddled ? ', across a window boundary: again' : ''}`);
      if (!straddled) break;
      if (attempt >= 4) throw new Error('every burst straddled a window boundary');
    }
    const ok = responses.filter((r) => r.status === 200);
    expect(ok).toHaveLength(limit);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(400 - limit);
    const remaining = ok.map((r) => Number(/remaining=(\d+)/.exec(String(r.headers['ratelimit']))?.[1]));
    expect(Math.min(...remaining)).toBe(0);
    expect(new Set(remaining).size).toBe(limit); // each served request its own place in the window
    const rows: Array<{ hits: number }> = await limited.services.orm.em.getConnection().execute('select hits from rate_limit_windows where key = ?', [`tenant:${tenant.id}`]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.hits).toBeGreaterThanOrEqual(limit);
  } finally {
    await limited.close();
  }
}, 300_000);

describe('more than one app in a process (src/app.ts shares the contract validator)', () => {
  test('a second app, and one without response validation, refuse and accept what the first does, path parameters included', async () => {
    const second = await createTestApp();
    const unvalidated = await createTestApp({ VALIDATE_RESPONSES: 'false' });
    try {
      for (const app of [t, second, unvalidated]) {
        const refused = await app.request.post('/api/v1/tenants').set('X-Admin-Key', ADMIN_KEY).send({ name: 'x', colour: 'red' });
        expect(refused.status).toBe(400);
        expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
        expect(JSON.stringify(refused.body.error.details)).toContain('colour');
        const created = await app.request.post('/api/v1/tenants').set('X-Admin-Key', ADMIN_KEY).send({ name: 'second-app' });
        expect(created.status).toBe(201);
        const fetched = await app.request.get(`/api/v1/tenants/${created.body.data.id}`).set('X-API-Key', created.body.data.api_key);
        expect(fetched.status).toBe(200);
        expect(fetched.body.data.id).toBe(created.body.data.id);
      }
    } finally {
      await second.close();
      await unvalidated.close();
    }
  });
});
