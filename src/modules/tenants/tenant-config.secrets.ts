import type { SecretBox } from '../../security/secret-box.ts';
import { maskSecret, sealedContext } from '../../security/secret-box.ts';
import type { PostMeetingWebhookConfig, StoredTenantConfig } from './tenant-config.ts';

// The three secrets a tenant gives us inside its config. They are sealed at rest, bound to their tenant and field
// (AES-GCM associated data `tenant:<id>:<field>`, so a sealed value copied to another tenant or field does not open),
// and masked in every response; this file is the one place that knows where they live.
type SecretTransform = (value: string, field: string) => string;

function mapSecrets(hook: Partial<PostMeetingWebhookConfig>, f: SecretTransform): Partial<PostMeetingWebhookConfig> {
  const out: Partial<PostMeetingWebhookConfig> = { ...hook };
  if (typeof hook.secret === 'string') out.secret = f(hook.secret, 'post_meeting_webhook.secret');
  if (typeof hook.transcription?.api_key === 'string') {
    out.transcription = { ...hook.transcription, api_key: f(hook.transcription.api_key, 'post_meeting_webhook.transcription.api_key') };
  }
  if (typeof hook.ai?.api_key === 'string') out.ai = { ...hook.ai, api_key: f(hook.ai.api_key, 'post_meeting_webhook.ai.api_key') };
  return out;
}

export function mapConfigSecrets<T extends StoredTenantConfig>(config: T, f: SecretTransform): T {
  if (!config.post_meeting_webhook) return config;
  return { ...config, post_meeting_webhook: mapSecrets(config.post_meeting_webhook, f) };
}

/** The associated data a tenant's secret is sealed with: its tenant and its field. */
export const secretContext = (tenantId: string, field: string) => sealedContext('tenant', tenantId, field);

export const sealConfig = <T extends StoredTenantConfig>(config: T, box: SecretBox, tenantId: string) =>
  mapConfigSecrets(config, (s, field) => box.seal(s, secretContext(tenantId, field)));
export const openConfig = <T extends StoredTenantConfig>(config: T, box: SecretBox, tenantId: string) =>
  mapConfigSecrets(config, (s, field) => box.open(s, secretContext(tenantId, field)));
export const maskConfig = <T extends StoredTenantConfig>(config: T) => mapConfigSecrets(config, maskSecret);
