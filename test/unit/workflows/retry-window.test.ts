// The retry window of a step that rides out outages, decided once in workflows/shared.ts: the activity's check
// (src/activities/retry-window.ts) and the workflow's deadline (recording-ingest, transcription, post-meeting) both
// come from it (docs/decisions.md §7, §9).
import { retryWindowDeadlineMs, retryWindowEndedReason, withinRetryWindow } from '../../../workflows/shared.ts';

test('an attempt is inside the window until the window has passed since the first attempt', () => {
  expect(withinRetryWindow(1_000, 1_000, 60)).toBe(true);
  expect(withinRetryWindow(1_000, 60_999, 60)).toBe(true);
  expect(withinRetryWindow(1_000, 61_000, 60)).toBe(false);
});

test('the deadline: the window, then one full attempt begun just before it ended (the values recorded in histories)', () => {
  expect(retryWindowDeadlineMs(24 * 3600, 4 * 3600)).toBe(28 * 3600_000); // ingestion: INGEST_RETRY_WINDOW's default
  expect(retryWindowDeadlineMs(30 * 60, 2 * 3600)).toBe(150 * 60_000); // transcription: POST_MEETING_RETRY_WINDOW's default
});

test('the reason reads the window as people do', () => {
  expect(retryWindowEndedReason(24 * 3600, 'HTTP 503')).toBe('still failing when the retry window of 24 h ended; last failure: HTTP 503');
  expect(retryWindowEndedReason(90 * 60, 'x')).toBe('still failing when the retry window of 90 min ended; last failure: x');
  expect(retryWindowEndedReason(45, 'x')).toBe('still failing when the retry window of 45 s ended; last failure: x');
});
