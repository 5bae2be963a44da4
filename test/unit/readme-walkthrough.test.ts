// The README's curl walk-through configures the tenant once (step 3 of "Try it") and later promises a transcript,
// summary and action items for the recording it makes. The include_* flags default to false, so that promise holds
// only if step 3's patch asks for them: this reads the patch out of the README and applies it as the API would.
import { readFileSync } from 'node:fs';
import { mergePatch, withDefaults, type StoredTenantConfig } from '../../src/modules/tenants/tenant-config.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('step 3 of the walk-through enables the post-meeting webhook with every include flag', () => {
  const step = /^# 3\. Configure the tenant[\s\S]*?-d '([^']*)'/m.exec(readme);
  expect(step).not.toBeNull();
  const patch = JSON.parse(step![1]) as StoredTenantConfig;
  const hook = withDefaults(mergePatch<StoredTenantConfig>({}, patch)).post_meeting_webhook;
  expect(hook).toMatchObject({
    enabled: true,
    include_recording: true,
    include_transcript: true,
    include_summary: true,
    include_action_items: true,
  });
});
