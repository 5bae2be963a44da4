import type { SecretBox } from '../../security/secret-box.ts';
import { maskSecret } from '../../security/secret-box.ts';
import type { PostMeetingWebhookConfig, StoredTenantConfig } from './tenant-config.ts';

// The three secrets a tenant gives us inside its config. They are sealed at rest and masked in every response;
// this file is the one place that knows where they live.
type SecretTransform = (value: string) => string;

function mapSecrets(hook: Partial<PostMeetingWebhookConfig>, f: SecretTransform): Partial<PostMeetingWebhookConfig> {
  const out: Partial<PostMeetingWebhookConfig> = { ...hook };
  if (typeof hook.secret === 'string') out.secret = f(hook.secret);
  if (typeof hook.transcription?.api_key === 'string') out.transcription = { ...hook.transcription, api_key: f(hook.transcription.api_key) };
  if (typeof hook.ai?.api_key === 'string') out.ai = { ...hook.ai, api_key: f(hook.ai.api_key) };
  return out;
}

function mapConfigSecrets<T extends StoredTenantConfig>(config: T, f: SecretTransform): T {
  if (!config.post_meeting_webhook) return config;
  return { ...config, post_meeting_webhook: mapSecrets(config.post_meeting_webhook, f) };
}

export const sealConfig = <T extends StoredTenantConfig>(config: T, box: SecretBox) => mapConfigSecrets(config, (s) => box.seal(s));
export const openConfig = <T extends StoredTenantConfig>(config: T, box: SecretBox) => mapConfigSecrets(config, (s) => box.open(s));
export const maskConfig = <T extends StoredTenantConfig>(config: T) => mapConfigSecrets(config, maskSecret);
