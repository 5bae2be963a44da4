// The activities a test's worker registers: createActivities, the worker's own factory, so every test registers the
// production set. Built from the test app's services as the worker builds them from its own; a test overrides only
// what it points elsewhere (a provider behind a switch, a webhook schedule, an event bus it listens to).
import { webhookSettings } from '../../src/activities/deliveries.ts';
import { createActivities, type ActivityDeps } from '../../src/activities/index.ts';
import { LocalEventBus } from '../../src/events/domain-events.ts';
import { ssrfPolicy } from '../../src/security/ssrf-guard.ts';
import type { TestApp } from './test-app.ts';

export function testActivities(t: TestApp, overrides: Partial<ActivityDeps> = {}) {
  const { orm, store, provider, logger, tenants, rooms, providers, handovers, secretBox } = t.services;
  return createActivities({
    orm,
    store,
    provider,
    // The worker publishes to the cross-process bus; a workflow test has no sockets to reach.
    events: new LocalEventBus(),
    logger,
    tenants,
    rooms,
    providers,
    handovers,
    webhooks: webhookSettings(t.config),
    secretBox,
    ssrfPolicy: ssrfPolicy(t.config),
    postMeetingRetryWindowSeconds: t.config.postMeetingRetryWindowSeconds,
    presenceStaleAfterSeconds: t.config.ws.presenceStaleAfterSeconds,
    ...overrides,
  });
}
