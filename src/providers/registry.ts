// The provider registry (docs/decisions.md §9): every transcription provider and AI analyser, built once from the operator's
// settings. A plain object with no I/O of its own, so the container (API) and the worker each build one.
//
// Exported for part 2 (transcripts, activities, workflows):
//   createProviderRegistry(config: Pick<Config, 'providers'>): ProviderRegistry
//   ProviderRegistry = {
//     transcription: {
//       list(): TranscriptionProvider[]         // the usable ones (GET /transcription/providers), openai then deepgram
//       get(id): TranscriptionProvider | undefined   // a usable provider by id ('openai' | 'deepgram')
//       isUsable(id, { tenantKey? }): boolean   // usable for a tenant that brings its own key
//       forTenant(id, tenantKey?): TranscriptionProvider | undefined  // get(), or a provider the tenant's key unlocks
//       defaultId: string | null                // TRANSCRIPTION_DEFAULT_PROVIDER if usable, else the first usable
//     }
//   tenantTranscriptionKey(own, providerId): string | undefined   // the tenant's own key, if it is for that provider
//     ai: {
//       get(id): AiAnalyzer | undefined         // 'builtin' and 'openai-compatible' (fails clearly without a key)
//       isUsable(id, { tenantKey? }): boolean   // builtin always; openai-compatible with a key where its host needs one
//       defaultId: 'builtin' | 'openai-compatible'   // AI_DEFAULT_PROVIDER
//     }
//   }
//   postMeetingTranscriptionProvider(registry, own): { provider } | { failure }   // the tenant's choice holds
// Every adapter throws ProviderError (src/providers/types.ts) with `retryable` set; none touches the database or Temporal.

import type { Config } from '../config.ts';
import { BuiltinAnalyzer } from './ai-builtin.ts';
import { OpenAiCompatibleAnalyzer } from './ai-openai-compatible.ts';
import { DeepgramProvider } from './deepgram.ts';
import { needsKey } from './provider-http.ts';
import { OpenAiTranscriptionProvider } from './openai.ts';
import type { AiAnalyzer, TranscriptionProvider } from './types.ts';

export interface ProviderRegistry {
  transcription: {
    list(): TranscriptionProvider[];
    get(id: string): TranscriptionProvider | undefined;
    isUsable(id: string, options?: { tenantKey?: string }): boolean;
    forTenant(id: string, tenantKey?: string): TranscriptionProvider | undefined;
    readonly defaultId: string | null;
  };
  ai: {
    get(id: string): AiAnalyzer | undefined;
    isUsable(id: string, options?: { tenantKey?: string }): boolean;
    readonly defaultId: 'builtin' | 'openai-compatible';
  };
}

export const TRANSCRIPTION_PROVIDER_IDS = ['openai', 'deepgram'] as const;

/**
 * The tenant's own transcription key (`post_meeting_webhook.transcription`) when it may be used for `providerId`: it
 * belongs to the provider the tenant chose, or to any provider when the tenant chose none. One rule for the API (is a
 * requested provider usable?) and the activity (which key is sent), so a 202 is never followed by "not configured".
 */
export function tenantTranscriptionKey(
  own: { provider?: string; api_key?: string } | null | undefined,
  providerId: string,
): string | undefined {
  if (!own?.api_key) return undefined;
  return !own.provider || own.provider === providerId ? own.api_key : undefined;
}

/**
 * The transcription provider of a post-meeting run (docs/decisions.md §9 "The tenant's choice holds"): the tenant's
 * `post_meeting_webhook.transcription.provider` when it chose one, else the deployment's default. A choice this
 * deployment cannot serve (any more) is a failure naming it: the audio never goes to a provider the tenant did not
 * choose.
 */
export function postMeetingTranscriptionProvider(
  registry: Pick<ProviderRegistry, 'transcription'>,
  own: { provider?: string; api_key?: string } | null | undefined,
): { provider: string } | { failure: string } {
  const { transcription } = registry;
  if (own?.provider) {
    if (transcription.isUsable(own.provider, { tenantKey: tenantTranscriptionKey(own, own.provider) })) return { provider: own.provider };
    return {
      failure: `the tenant's transcription provider "${own.provider}" (post_meeting_webhook.transcription.provider) is not usable on this deployment: not configured, or no API key for it`,
    };
  }
  return transcription.defaultId ? { provider: transcription.defaultId } : { failure: 'no transcription provider is configured on this deployment' };
}

export function createProviderRegistry(config: Pick<Config, 'providers'>): ProviderRegistry {
  const settings = config.providers;
  const all: Record<string, { provider: TranscriptionProvider; baseUrl: string; operatorKey: string | undefined }> = {
    openai: {
      provider: new OpenAiTranscriptionProvider(settings.openai),
      baseUrl: settings.openai.baseUrl,
      operatorKey: settings.openai.apiKey,
    },
    deepgram: {
      provider: new DeepgramProvider(settings.deepgram),
      baseUrl: settings.deepgram.baseUrl,
      operatorKey: settings.deepgram.apiKey,
    },
  };
  // Usable: a base URL (always set, with a default) and a key where the vendor's own service needs one; a
  // self-hosted or development server (e.g. the development media server) needs none.
  const isUsable = (id: string, options: { tenantKey?: string } = {}) => {
    const entry = Object.hasOwn(all, id) ? all[id] : undefined;
    if (!entry) return false;
    return !needsKey(entry.baseUrl) || Boolean(options.tenantKey ?? entry.operatorKey);
  };
  const usable = TRANSCRIPTION_PROVIDER_IDS.filter((id) => isUsable(id));
  const defaultId = usable.includes(settings.defaultTranscription) ? settings.defaultTranscription : (usable[0] ?? null);

  const builtin = new BuiltinAnalyzer();
  const openAiCompatible = new OpenAiCompatibleAnalyzer(settings.ai);

  return {
    transcription: {
      list: () => usable.map((id) => all[id].provider),
      get: (id) => (usable.includes(id as never) ? all[id].provider : undefined),
      isUsable,
      forTenant: (id, tenantKey) => (isUsable(id, { tenantKey }) ? all[id].provider : undefined),
      defaultId,
    },
    ai: {
      // The openai-compatible analyser is offered even without an operator key when a tenant brings its own: the
      // adapter fails non-retryably, naming the provider, if neither key is there.
      get: (id) => (id === 'builtin' ? builtin : id === 'openai-compatible' ? openAiCompatible : undefined),
      // Usable as the transcription providers are: a vendor's own service needs a key (the operator's or the tenant's).
      isUsable: (id, options = {}) =>
        id === 'builtin' || (id === 'openai-compatible' && (!needsKey(settings.ai.baseUrl) || Boolean(options.tenantKey ?? settings.ai.apiKey))),
      defaultId: settings.ai.defaultProvider,
    },
  };
}
