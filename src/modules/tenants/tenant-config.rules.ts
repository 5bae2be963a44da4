import { validationError } from '../../domain/errors.ts';
import { canonicalLanguage, isSupportedLanguage, PROVIDER_LANGUAGES } from '../../providers/languages.ts';
import { TRANSCRIPTION_PROVIDER_IDS, tenantTranscriptionKey, type ProviderRegistry } from '../../providers/registry.ts';
import { assertSafeWebhookUrl, UnsafeUrlError } from '../../security/ssrf-guard.ts';
import type { TenantConfig, TenantConfigPatch } from './tenant-config.ts';

// Rules the OpenAPI schema cannot express (types, enums such as ai.provider, and ranges are checked there first).

const LOCAL_WILDCARDS = new Set(['http://localhost:*', 'http://127.0.0.1:*']);
const MODEL_ID = /^[A-Za-z0-9._-]+\/[A-Za-z0-9._:-]+$/;

export interface ConfigCheckOptions {
  production: boolean;
  /** What this deployment can use (docs/decisions.md §9 "The tenant's choice holds"). */
  providers: Pick<ProviderRegistry, 'transcription' | 'ai'>;
  /** The patch being saved: provider rules are checked for what it sets, so a provider the operator removed later
   *  does not block unrelated changes (the post-meeting step then fails naming it). */
  patch: TenantConfigPatch;
}

export async function assertValidConfig(config: TenantConfig, options: ConfigCheckOptions): Promise<TenantConfig> {
  config.allowed_origins.forEach((origin, i) => assertOrigin(origin, `/body/allowed_origins/${i}`));

  const language = canonicalLanguage(config.transcription_language);
  if (!language || !isSupportedLanguage(language)) {
    throw validationError('/body/transcription_language', `"${config.transcription_language}" is not a language any transcription provider supports`);
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
  assertProvidersUsable(config, language, options);
  return { ...config, transcription_language: language };
}

/**
 * docs/decisions.md §9: a transcription or AI provider the tenant chooses must be one this deployment can serve for it (its
 * own key counts), and `transcription_language` must be supported by the provider(s) it will actually use: the one it
 * chose, else those usable here, not every vendor Convene knows.
 */
function assertProvidersUsable(config: TenantConfig, language: string, options: ConfigCheckOptions): void {
  const { transcription, ai } = options.providers;
  const patchedHook = options.patch.post_meeting_webhook;
  const own = config.post_meeting_webhook?.transcription;
  const ownTouched = Boolean(patchedHook?.transcription);
  if (ownTouched && own?.provider && !transcription.isUsable(own.provider, { tenantKey: tenantTranscriptionKey(own, own.provider) })) {
    const usable = TRANSCRIPTION_PROVIDER_IDS.filter((id) => transcription.isUsable(id));
    throw validationError(
      '/body/post_meeting_webhook/transcription/provider',
      `Transcription provider "${own.provider}" is not usable on this deployment (usable: ${usable.join(', ') || 'none'}); give its api_key to use your own account`,
    );
  }
  const chosenAi = config.post_meeting_webhook?.ai;
  if (patchedHook?.ai && chosenAi?.provider && !ai.isUsable(chosenAi.provider, { tenantKey: chosenAi.api_key })) {
    throw validationError(
      '/body/post_meeting_webhook/ai/provider',
      `AI provider "${chosenAi.provider}" is not usable on this deployment (no API key for it); give its api_key to use your own account`,
    );
  }
  if (options.patch.transcription_language !== undefined || ownTouched) {
    const candidates = own?.provider
      ? [own.provider]
      : TRANSCRIPTION_PROVIDER_IDS.filter((id) => transcription.isUsable(id, { tenantKey: tenantTranscriptionKey(own, id) }));
    if (!isSupportedLanguage(language, candidates)) {
      const field = options.patch.transcription_language !== undefined ? '/body/transcription_language' : '/body/post_meeting_webhook/transcription/provider';
      throw validationError(
        field,
        candidates.length === 0
          ? `"${language}" cannot be checked: no transcription provider is usable on this deployment`
          : `"${language}" is not supported by ${own?.provider ? `the chosen transcription provider "${own.provider}"` : `the transcription providers of this deployment (${candidates.join(', ')})`}`,
      );
    }
  }
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
