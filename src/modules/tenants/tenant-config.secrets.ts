import { validationError } from '../../domain/errors.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { looksMasked, maskSecret, sealedContext } from '../../security/secret-box.ts';
import type { PostMeetingWebhookConfig, StoredTenantConfig, TenantConfigPatch } from './tenant-config.ts';

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
/** The same config with every secret sealed with the newest SECRETS_KEY key (the reseal command). */
export const resealConfig = <T extends StoredTenantConfig>(config: T, box: SecretBox, tenantId: string) =>
  mapConfigSecrets(config, (s, field) => box.reseal(s, secretContext(tenantId, field)));

/**
 * A config read and sent back whole changes no secret (docs/decisions.md §4): in the patch, a secret whose value is
 * exactly the mask shown for the stored secret becomes the stored secret; any other value that looks like a mask is a
 * 400 naming the field, so a mask is never stored as a key. `current` is the stored config, secrets opened.
 */
export function unmaskPatch(patch: TenantConfigPatch, current: StoredTenantConfig): TenantConfigPatch {
  return mapConfigSecrets(patch as StoredTenantConfig, (value, field) => {
    if (!looksMasked(value)) return value;
    const stored = storedSecret(current, field);
    if (stored !== undefined && maskSecret(stored) === value) return stored;
    throw validationError(
      `/body/${field.replaceAll('.', '/')}`,
      stored === undefined
        ? `${field} is a mask ("****…") but no secret is stored there: send the secret itself`
        : `${field} is a mask ("****…") that is not the one shown for the stored secret: send the mask unchanged to keep it, or the new secret`,
    );
  }) as TenantConfigPatch;
}

/** The stored secret at a field path that mapConfigSecrets names (`post_meeting_webhook.ai.api_key`). */
function storedSecret(config: StoredTenantConfig, field: string): string | undefined {
  let node: unknown = config;
  for (const key of field.split('.')) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
  return typeof node === 'string' ? node : undefined;
}
