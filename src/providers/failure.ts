// What a transcription or AI provider's failure (ProviderError, types.ts) means for the step that called it, decided
// once for both kinds of provider: a refusal no retry can fix (a bad key, another 4xx, an unusable answer), or an
// outage worth retrying while POST_MEETING_RETRY_WINDOW lasts (docs/decisions.md §9). Which it is, the adapter says when
// it throws (`retryable`); the activities turn this answer into Temporal's failure (src/activities/provider-failure.ts).
// The media provider's failures (src/upstream/) are another matter: the API answers them with a 503
// (recording.service.ts), and nothing retries a request.
import { ProviderError } from './types.ts';

/** Which provider failed, as the failure's message names it. */
export type ProviderRole = 'transcription' | 'AI';

export interface ProviderFailure {
  /** `refused`: fail the step now; `unavailable`: retry it within the window. */
  kind: 'refused' | 'unavailable';
  message: string;
}

/** The reading of `err` when a transcription or AI provider threw it; null for anything else (left as it is). */
export function classifyProviderFailure(err: unknown, role: ProviderRole): ProviderFailure | null {
  if (!(err instanceof ProviderError)) return null;
  return err.retryable
    ? { kind: 'unavailable', message: `${role} provider unavailable: ${err.message}` }
    : { kind: 'refused', message: `${role} provider refused: ${err.message}` };
}
