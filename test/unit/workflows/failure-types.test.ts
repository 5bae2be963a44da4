// Failure type names are defined once (workflows/failure-types.ts) and recorded in workflow histories (retry policies'
// non-retryable types, the type a run fails with): a value that changed would no longer match runs in flight. The
// order of TRANSCRIPTION_FAILURE is the order of its steps' nonRetryableErrorTypes.
import { DELIVERY_FAILURE, INGESTION_FAILURE, RETRYABLE_FAILURE, RUN_FAILURE, TRANSCRIPTION_FAILURE } from '../../../workflows/failure-types.ts';

test('the failure types keep the values the histories hold', () => {
  expect(INGESTION_FAILURE).toEqual({ recordingGone: 'RecordingGone', permanentIngestFailure: 'PermanentIngestFailure' });
  expect(Object.values(TRANSCRIPTION_FAILURE)).toEqual(['TranscriptGone', 'RecordingUnavailable', 'ProviderRejected', 'RetryWindowEnded', 'TranscriptionFailed']);
  expect(RETRYABLE_FAILURE).toEqual({ providerUnavailable: 'ProviderUnavailable', attemptSuperseded: 'AttemptSuperseded', tenantStillExists: 'TenantStillExists' });
  expect(Object.values(TRANSCRIPTION_FAILURE)).not.toContain(RETRYABLE_FAILURE.providerUnavailable);
  expect(DELIVERY_FAILURE).toEqual({ deliveryGone: 'DeliveryGone' });
  expect(RUN_FAILURE).toEqual({ ingestionFailed: 'IngestionFailed', transcriptionFailed: 'TranscriptionFailed' });
});
