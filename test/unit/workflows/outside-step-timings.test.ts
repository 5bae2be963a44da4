// The tests' shorter heartbeat timeouts and retry delays for the steps that call a service outside the database
// (workflows/shared.ts OutsideStepTimings, SHORT_OUTSIDE_STEP_TIMINGS in src/config.ts) travel in a run's input. Absent,
// as in every production start, they change nothing: no option laid over the step's own, no field in the input.
import { SHORT_OUTSIDE_STEP_TIMINGS } from '../../../src/config.ts';
import { withOutsideStepTimings } from '../../../src/handover/handover.ts';
import { starts } from '../../../src/handover/starts.ts';
import { outsideStepOverrides } from '../../../workflows/shared.ts';

test('absent timings lay nothing over a step: its heartbeat timeout and retry policy stay the workflow’s own', () => {
  expect(outsideStepOverrides(undefined, { heartbeats: true })).toEqual({});
  expect(outsideStepOverrides(undefined, { heartbeats: false })).toEqual({});
});

test('given timings replace the heartbeat timeout (where the step has one) and the first and longest retry delays', () => {
  const timings = { heartbeatTimeoutMs: 5000, initialIntervalMs: 500, maximumIntervalMs: 2000 };
  expect(outsideStepOverrides(timings, { heartbeats: true })).toEqual({ heartbeatTimeout: 5000, retry: { initialInterval: 500, maximumInterval: 2000 } });
  // The AI analyser does not heartbeat: a heartbeat timeout would end every attempt.
  expect(outsideStepOverrides(timings, { heartbeats: false })).toEqual({ retry: { initialInterval: 500, maximumInterval: 2000 } });
});

test('a hand-over gets the timings in its input only when there are some and its workflow takes them', () => {
  const transcription = starts.transcription({ transcriptId: 't1', tenantId: 'te', roomId: 'r', recordingId: 'rec' });
  expect(withOutsideStepTimings(transcription, undefined)).toBe(transcription); // production: recorded as it always was
  expect(withOutsideStepTimings(transcription, SHORT_OUTSIDE_STEP_TIMINGS).args).toEqual([{ transcriptId: 't1', outsideStepTimings: SHORT_OUTSIDE_STEP_TIMINGS }]);
  const delivery = starts.webhookDelivery({ deliveryId: 'd1', event: 'meeting.recording_ready', tenantId: 'te', roomId: null, recordingId: null, retryDelaysSeconds: [0, 60] });
  expect(withOutsideStepTimings(delivery, SHORT_OUTSIDE_STEP_TIMINGS).args).toEqual([
    { deliveryId: 'd1', retryDelaysSeconds: [0, 60], outsideStepTimings: SHORT_OUTSIDE_STEP_TIMINGS },
  ]);
  // A workflow with no step calling a service outside the database has nothing to shorten.
  const purge = starts.tenantPurge({ tenantId: 'te' });
  expect(withOutsideStepTimings(purge, SHORT_OUTSIDE_STEP_TIMINGS)).toBe(purge);
});
