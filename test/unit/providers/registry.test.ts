// Which providers are usable, and the provider settings' defaults and validation (src/config.ts).
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { maskProfanity, iso639_1 } from '../../../src/providers/audio.ts';
import { createProviderRegistry, postMeetingTranscriptionProvider, tenantTranscriptionKey } from '../../../src/providers/registry.ts';

const ids = (env: Record<string, string>) => createProviderRegistry(loadConfig(env)).transcription.list().map((p) => p.id);

test('by default no transcription provider is usable (the vendors need keys) and the AI is builtin', () => {
  const registry = createProviderRegistry(loadConfig({}));
  expect(registry.transcription.list()).toEqual([]);
  expect(registry.transcription.defaultId).toBeNull();
  expect(registry.ai.defaultId).toBe('builtin');
  expect(registry.ai.get('builtin')?.id).toBe('builtin');
  expect(registry.ai.get('openai-compatible')?.id).toBe('openai-compatible');
  expect(registry.ai.get('other')).toBeUndefined();
});

test('a key makes a vendor usable; a self-hosted base URL needs none', () => {
  expect(ids({ OPENAI_API_KEY: 'sk-1' })).toEqual(['openai']);
  expect(ids({ OPENAI_BASE_URL: 'http://127.0.0.1:4010/v1' })).toEqual(['openai']);
  expect(ids({ DEEPGRAM_API_KEY: 'dg-1', OPENAI_API_KEY: 'sk-1' })).toEqual(['openai', 'deepgram']);
  expect(ids({ DEEPGRAM_BASE_URL: 'https://api.eu.deepgram.com' })).toEqual([]);
});

test('the default provider is the configured one when usable, else the first usable', () => {
  const both = createProviderRegistry(
    loadConfig({ OPENAI_API_KEY: 'sk-1', DEEPGRAM_API_KEY: 'dg-1', TRANSCRIPTION_DEFAULT_PROVIDER: 'deepgram' }),
  );
  expect(both.transcription.defaultId).toBe('deepgram');
  const onlyOpenai = createProviderRegistry(loadConfig({ OPENAI_API_KEY: 'sk-1', TRANSCRIPTION_DEFAULT_PROVIDER: 'deepgram' }));
  expect(onlyOpenai.transcription.defaultId).toBe('openai');
  expect(onlyOpenai.transcription.get('deepgram')).toBeUndefined();
  expect(onlyOpenai.transcription.get('openai')?.supportedLanguages).toContain('en-US');
  // A tenant's own key unlocks a vendor the operator has no key for.
  expect(onlyOpenai.transcription.isUsable('deepgram', { tenantKey: 'tenant-dg' })).toBe(true);
  expect(onlyOpenai.transcription.forTenant('deepgram', 'tenant-dg')?.id).toBe('deepgram');
  expect(onlyOpenai.transcription.forTenant('deepgram')).toBeUndefined();
  expect(onlyOpenai.transcription.get('__proto__')).toBeUndefined();
});

test("a tenant's own transcription key is for the provider it chose, or for any when it chose none", () => {
  expect(tenantTranscriptionKey({ provider: 'deepgram', api_key: 'dg-tenant' }, 'deepgram')).toBe('dg-tenant');
  expect(tenantTranscriptionKey({ provider: 'openai', api_key: 'sk-tenant' }, 'deepgram')).toBeUndefined();
  expect(tenantTranscriptionKey({ api_key: 'any-tenant' }, 'deepgram')).toBe('any-tenant');
  expect(tenantTranscriptionKey({ provider: 'deepgram' }, 'deepgram')).toBeUndefined();
  expect(tenantTranscriptionKey(null, 'openai')).toBeUndefined();
});

test('provider settings: defaults and a message naming the bad variable', () => {
  const { providers } = loadConfig({});
  expect(providers.openai).toMatchObject({ baseUrl: 'https://api.openai.com/v1', maxUploadBytes: 25 * 1024 * 1024, maxConcurrency: 4 });
  expect(providers.deepgram).toMatchObject({ baseUrl: 'https://api.deepgram.com', model: 'nova-3' });
  expect(providers.ai).toMatchObject({ defaultProvider: 'builtin', model: 'openai/gpt-4o-mini' });
  expect(() => loadConfig({ OPENAI_MAX_CONCURRENCY: '0' })).toThrow(new ConfigError('Invalid OPENAI_MAX_CONCURRENCY: must be an integer from 1 to 100'));
  expect(() => loadConfig({ AI_MODEL: 'gpt-4o' })).toThrow(/^Invalid AI_MODEL: must look like <vendor>\/<model>/);
  expect(() => loadConfig({ DEEPGRAM_BASE_URL: 'ftp://x' })).toThrow(/^Invalid DEEPGRAM_BASE_URL/);
  expect(() => loadConfig({ TRANSCRIPTION_DEFAULT_PROVIDER: 'whisper' })).toThrow(/^Invalid TRANSCRIPTION_DEFAULT_PROVIDER/);
  expect(() => loadConfig({ AI_DEFAULT_PROVIDER: 'gpt' })).toThrow(/^Invalid AI_DEFAULT_PROVIDER/);
});

test('what we apply where the vendor lacks it: profanity masking, ISO 639-1 language codes', () => {
  expect(maskProfanity('Well, shit. That damn build is fucking broken, Dickens.')).toBe(
    'Well, s***. That d*** build is f****** broken, Dickens.',
  );
  expect(iso639_1('en-US')).toBe('en');
  expect(iso639_1('pt-BR')).toBe('pt');
  expect(iso639_1('de')).toBe('de');
});

test("the tenant's choice holds: its provider or a failure naming it, never the default instead (docs/decisions.md §9)", () => {
  const registry = createProviderRegistry(loadConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }));
  expect(postMeetingTranscriptionProvider(registry, undefined)).toEqual({ provider: 'openai' });
  expect(postMeetingTranscriptionProvider(registry, { provider: 'deepgram', api_key: 'dg-tenant' })).toEqual({ provider: 'deepgram' });
  const refused = postMeetingTranscriptionProvider(registry, { provider: 'deepgram' });
  expect(refused).toEqual({ failure: expect.stringContaining('"deepgram"') });
  expect(postMeetingTranscriptionProvider(createProviderRegistry(loadConfig({})), null)).toEqual({ failure: 'no transcription provider is configured on this deployment' });

  expect(registry.ai.isUsable('builtin')).toBe(true);
  expect(registry.ai.isUsable('openai-compatible')).toBe(false); // OpenAI's own service, no key
  expect(registry.ai.isUsable('openai-compatible', { tenantKey: 'sk-tenant' })).toBe(true);
  expect(createProviderRegistry(loadConfig({ AI_BASE_URL: 'http://127.0.0.1:8080/v1' })).ai.isUsable('openai-compatible')).toBe(true);
  expect(registry.ai.isUsable('other')).toBe(false);
});
