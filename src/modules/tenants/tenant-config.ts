// The tenant config: defaults, merge-patch, and the shapes stored at rest and shown to clients.
// Secrets inside it (webhook secret, provider keys) are stored sealed and shown masked (docs/decisions.md §4).
import type { components } from '../../../generated/openapi.ts';

export type DuplicateParticipantPolicy = 'reject' | 'disconnect_existing' | 'allow';

/** The webhook as it takes effect: every include flag decided (false unless the tenant set it). */
export interface PostMeetingWebhookConfig {
  enabled: boolean;
  url: string;
  secret: string;
  include_recording: boolean;
  include_transcript: boolean;
  include_summary: boolean;
  include_action_items: boolean;
  transcription?: { provider?: string; api_key?: string };
  ai?: { provider?: 'builtin' | 'openai-compatible'; api_key?: string; model?: string };
}

export interface TenantConfig {
  force_recording: boolean;
  auto_start_recording: boolean;
  allow_early_join: boolean;
  empty_room_timeout_minutes: number;
  recording_retention_days: number;
  duplicate_participant_policy: DuplicateParticipantPolicy;
  transcription_enabled: boolean;
  transcription_language: string;
  transcription_profanity_filter: boolean;
  transcription_keywords: string[];
  allowed_origins: string[];
  post_meeting_webhook: PostMeetingWebhookConfig | null;
}

export const DEFAULT_TENANT_CONFIG: TenantConfig = Object.freeze({
  force_recording: false,
  auto_start_recording: false,
  allow_early_join: true,
  empty_room_timeout_minutes: 30,
  recording_retention_days: 30,
  duplicate_participant_policy: 'reject',
  transcription_enabled: true,
  transcription_language: 'en-US',
  transcription_profanity_filter: false,
  transcription_keywords: [],
  allowed_origins: [],
  post_meeting_webhook: null,
}) as TenantConfig;

/** What is stored: only the fields the tenant set. */
export type StoredTenantConfig = Partial<Omit<TenantConfig, 'post_meeting_webhook'>> & {
  post_meeting_webhook?: Partial<PostMeetingWebhookConfig> | null;
};

/** An RFC 7396 merge patch as the contract describes it: `null` removes a field, nested ones included. */
export type TenantConfigPatch = components['schemas']['TenantConfigPatch'];

/** RFC 7396 merge patch on plain JSON objects: provided fields change, null removes, others keep their values. */
export function mergePatch<T>(target: T, patch: unknown): T {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch as T;
  const base: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete base[key];
    else base[key] = mergePatch(base[key], value);
  }
  return base as T;
}

/**
 * The stored config with every default filled in (stored configs only hold what the tenant set). To read a tenant's
 * config use TenantService.effectiveConfig, which opens the sealed secrets first; this is its last step.
 */
export function withDefaults(stored: StoredTenantConfig | null | undefined): TenantConfig {
  const { post_meeting_webhook: hook, ...rest } = stored ?? {};
  return {
    ...DEFAULT_TENANT_CONFIG,
    ...rest,
    // enabled/url/secret are required whenever a webhook is stored (checked on every patch).
    post_meeting_webhook: hook ? ({ ...WEBHOOK_INCLUDE_DEFAULTS, ...hook } as PostMeetingWebhookConfig) : null,
  };
}

const WEBHOOK_INCLUDE_DEFAULTS = { include_recording: false, include_transcript: false, include_summary: false, include_action_items: false };
