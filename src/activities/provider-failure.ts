// A transcription or AI provider's failure as Temporal reads it, for every activity that calls such a provider
// (transcription.ts, post-meeting.ts). What the failure means is decided in src/providers/failure.ts.
import { ApplicationFailure } from '@temporalio/activity';
import { classifyProviderFailure, type ProviderRole } from '../providers/failure.ts';
import { RETRYABLE_FAILURE, TRANSCRIPTION_FAILURE } from '../../workflows/failure-types.ts';

/** A refusal → non-retryable (the step fails at once); an outage → retryable (the workflow's policy, within the window). */
export function providerFailure(err: unknown, role: ProviderRole): unknown {
  const failure = classifyProviderFailure(err, role);
  if (!failure) return err;
  return failure.kind === 'refused'
    ? ApplicationFailure.nonRetryable(failure.message, TRANSCRIPTION_FAILURE.providerRejected)
    : ApplicationFailure.retryable(failure.message, RETRYABLE_FAILURE.providerUnavailable);
}
