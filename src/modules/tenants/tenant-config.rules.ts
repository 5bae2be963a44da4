import { validationError } from '../../domain/errors.ts';
import { canonicalLanguage, isSupportedLanguage, PROVIDER_LANGUAGES } from '../../providers/languages.ts';
import { assertSafeWebhookUrl, UnsafeUrlError } from '../../security/ssrf-guard.ts';
import type { TenantConfig } from './tenant-config.ts';

// Rules the OpenAPI schema cannot express (types, enums such as ai.provider, and ranges are checked there first).

const LOCAL_WILDCARDS = new Set(['http://localhost:*', 'http://127.0.0.1:*']);
const MODEL_ID = /^[A-Za-z0-9._-]+\/[A-Za-z0-9._:-]+$/;

export async function assertValidConfig(config: TenantConfig, options: { production: boolean }): Promise<TenantConfig> {
  config.allowed_origins.forEach((origin, i) => assertOrigin(origin, `/body/allowed_origins/${i}`));

  const language = canonicalLanguage(config.transcription_language);
  if (!language || !isSupportedLanguage(language)) {
    throw validationError('/body/transcription_language', `"${config.transcription_language}" is not a language any configured transcription provider supports`);
  }

  const hook = config.post_meeting_webhook;
  if (hook) {
    for (const field of ['enabled', 'url', 'secret'] as const) {
      if (hook[field] === undefined) throw validationError(`/body/post_meeting_webhook/${field}`, `post_meeting_webhook.${field} is required`);
    }
    try {
      await assertSafeWebhookUrl(hook.url, { production: options.production });
    } catch (err) {
      if (err instanceof UnsafeUrlError) throw validationError('/body/post_meeting_webhook/url', err.message);
      throw err;
    }
    const provider = hook.transcription?.provider;
    if (provider !== undefined && !(provider in PROVIDER_LANGUAGES)) {
      throw validationError('/body/post_meeting_webhook/transcription/provider', `Unknown transcription provider "${provider}"; one of ${Object.keys(PROVIDER_LANGUAGES).join(', ')}`);
    }
    if (hook.ai?.model !== undefined && !MODEL_ID.test(hook.ai.model)) {
      throw validationError('/body/post_meeting_webhook/ai/model', 'ai.model must have the form <vendor>/<model>');
    }
  }
  return { ...config, transcription_language: language! };
}

/** The spec's three rules: at most 20 (schema), http(s) URLs, and no wildcard except for localhost. */
function assertOrigin(origin: string, path: string): void {
  if (LOCAL_WILDCARDS.has(origin)) return;
  if (origin.includes('*')) throw validationError(path, `Wildcards are allowed only as ${[...LOCAL_WILDCARDS].join(' or ')}`);
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw validationError(path, `"${origin}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw validationError(path, 'Origins must start with http:// or https://');
  if (url.origin !== origin.replace(/\/$/, '')) {
    throw validationError(path, `"${origin}" must be an origin (scheme, host and optional port), e.g. ${url.origin}`);
  }
}
