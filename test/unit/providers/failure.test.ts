// One reading of a transcription or AI provider's failure (src/providers/failure.ts), and the Temporal failure the
// activities make of it (src/activities/provider-failure.ts): a refusal fails the step at once, an outage is retried.
import { ApplicationFailure } from '@temporalio/activity';
import { providerFailure } from '../../../src/activities/provider-failure.ts';
import { classifyProviderFailure } from '../../../src/providers/failure.ts';
import { ProviderError } from '../../../src/providers/types.ts';
import { TRANSCRIPTION_FAILURE } from '../../../workflows/failure-types.ts';

const refused = new ProviderError('401 bad key', { retryable: false, status: 401 });
const down = new ProviderError('503 overloaded', { retryable: true, status: 503 });

test('a provider error is refused or unavailable, as the adapter said; anything else is not read', () => {
  expect(classifyProviderFailure(refused, 'AI')).toEqual({ kind: 'refused', message: 'AI provider refused: 401 bad key' });
  expect(classifyProviderFailure(down, 'transcription')).toEqual({ kind: 'unavailable', message: 'transcription provider unavailable: 503 overloaded' });
  expect(classifyProviderFailure(new Error('boom'), 'AI')).toBeNull();
});

test('the activities throw a refusal as non-retryable ProviderRejected, an outage as retryable, anything else as it is', () => {
  const rejected = providerFailure(refused, 'transcription') as ApplicationFailure;
  expect(rejected).toBeInstanceOf(ApplicationFailure);
  expect([rejected.type, rejected.nonRetryable, rejected.message]).toEqual([TRANSCRIPTION_FAILURE.providerRejected, true, 'transcription provider refused: 401 bad key']);
  const unavailable = providerFailure(down, 'AI') as ApplicationFailure;
  expect([unavailable.type, unavailable.nonRetryable, unavailable.message]).toEqual(['ProviderUnavailable', false, 'AI provider unavailable: 503 overloaded']);
  const other = new Error('boom');
  expect(providerFailure(other, 'AI')).toBe(other);
});
