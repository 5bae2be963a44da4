// What the API (client), the worker and the workflows agree on: workflow ids, signals and queries (the task queue is a
// setting: TEMPORAL_TASK_QUEUE in src/config.ts).
// Workflow ids derive from the resource they act on, so a second start for the same resource finds the first.
// Every id, signal and query is defined here and nowhere else (docs/architecture.md habit 1; ids per docs/decisions.md §13).
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** Download from the provider, store in S3, mark `ready` (or `failed`). One per recording at a time. */
export const recordingIngestWorkflowId = (recordingId: string) => `recording-ingest-${recordingId}`;
/** Stops a recording at the tenant's max_recording_duration_minutes unless it is stopped first. */
export const recordingAutoStopWorkflowId = (recordingId: string) => `recording-autostop-${recordingId}`;
/** Purges a recording's stored file once the tenant's recording_retention_days have passed. */
export const recordingRetentionWorkflowId = (recordingId: string) => `recording-retention-${recordingId}`;

/**
 * A room ended or was deleted: stop what still records it (docs/decisions.md §6). Its start is recorded as a hand-over in
 * the transaction that ends or deletes the room (src/modules/recordings/recording-stop.ts, docs/decisions.md §15), so it
 * commits with the change and the relay starts it even if the process dies right after the commit. One per room at a time.
 */
export const roomRecordingStopWorkflowId = (roomId: string) => `room-recording-stop-${roomId}`;

/** Ends a room once it has been empty for the tenant's empty_room_timeout_minutes (docs/decisions.md §6). One per room. */
export const emptyRoomWorkflowId = (roomId: string) => `empty-room-${roomId}`;

/** Deletes a deleted tenant's stored files (its rows are gone already). */
export const tenantPurgeWorkflowId = (tenantId: string) => `tenant-purge-${tenantId}`;

/**
 * Transcribe, summarise, then hand the result to a webhook delivery (docs/decisions.md §9). Run 1, started by ingestion, is
 * `post-meeting-<recording>`; a re-run asked for through `POST /recordings/{id}/post-meeting` is run n = 2, 3, …:
 * `post-meeting-<recording>-<n>` (a repeated request for the same n finds the run already started).
 */
export const postMeetingWorkflowId = (recordingId: string, run = 1) => (run > 1 ? `post-meeting-${recordingId}-${run}` : `post-meeting-${recordingId}`);
/** One transcript: stream the audio from S3 to the provider, store the segments. */
export const transcriptionWorkflowId = (transcriptId: string) => `transcription-${transcriptId}`;
/**
 * The task queue of one transcription provider's calls: every worker serves it with at most that provider's
 * `*_MAX_CONCURRENCY` activities at once (src/worker.ts), so calls beyond the limit wait in Temporal
 * (schedule-to-start) instead of holding an activity slot of the worker's main queue (docs/scaling.md).
 */
export const transcriptionTaskQueue = (taskQueue: string, providerId: string) => `${taskQueue}-transcription-${providerId}`;

/** One outgoing webhook delivery: sign, POST, record the attempt, sleep per the schedule (docs/decisions.md §10). */
export const webhookDeliveryWorkflowId = (deliveryId: string) => `webhook-delivery-${deliveryId}`;

/**
 * Keyword search attributes every workflow is started with (docs/decisions.md §13), so an operator finds all runs of a tenant,
 * room, recording or delivery with one query (`ConveneRecordingId = "<id>"`). The dev stack, the test harness and
 * docker-compose register them with the Temporal server.
 */
export const SEARCH_ATTRIBUTE_NAMES = {
  tenantId: 'ConveneTenantId',
  roomId: 'ConveneRoomId',
  recordingId: 'ConveneRecordingId',
  deliveryId: 'ConveneDeliveryId',
} as const;

/** The resources a run acts on: what its search attributes say (docs/decisions.md §13). */
export interface WorkflowSubject {
  tenantId: string;
  roomId?: string | null;
  recordingId?: string | null;
  deliveryId?: string | null;
}

/**
 * `typedSearchAttributes` for a workflow start (client `workflow.start` and workflow `startChild` alike): a plain
 * key/value list, so workflow code needs no import beyond this file.
 */
export function searchAttributesFor(subject: WorkflowSubject): Array<{ key: { name: string; type: 'KEYWORD' }; value: string }> {
  const pairs: Array<[string, string | null | undefined]> = [
    [SEARCH_ATTRIBUTE_NAMES.tenantId, subject.tenantId],
    [SEARCH_ATTRIBUTE_NAMES.roomId, subject.roomId],
    [SEARCH_ATTRIBUTE_NAMES.recordingId, subject.recordingId],
    [SEARCH_ATTRIBUTE_NAMES.deliveryId, subject.deliveryId],
  ];
  return pairs.flatMap(([name, value]) => (value ? [{ key: { name, type: 'KEYWORD' as const }, value }] : []));
}

export interface RoomRecordingStopInput {
  tenantId: string;
  roomId: string;
}

export interface PostMeetingInput {
  recordingId: string;
  /** Absent (or 1) for the run ingestion starts; n ≥ 2 for a re-run (docs/decisions.md §9 "Outages and re-runs"). */
  run?: number;
  /** Shorter database-step timings (fault tests only; StepTimings). Absent: the defaults. */
  stepTimings?: StepTimings;
  /** Shorter waits of the provider steps (tests only; OutsideStepTimings). Absent: the defaults. */
  outsideStepTimings?: OutsideStepTimings;
}

export interface TranscriptionInput {
  transcriptId: string;
  /** Shorter waits of the provider step (tests only; OutsideStepTimings). Absent: the defaults. */
  outsideStepTimings?: OutsideStepTimings;
}

/** How long a post-meeting step (transcription, AI) retries transient provider failures when no setting says
 * (POST_MEETING_RETRY_WINDOW, docs/decisions.md §9): for activity results recorded before the setting existed. */
export const DEFAULT_POST_MEETING_RETRY_WINDOW_SECONDS = 30 * 60;

export interface WebhookDeliveryInput {
  deliveryId: string;
  /** Shorter waits of the attempts (tests only; OutsideStepTimings). Absent: the defaults. */
  outsideStepTimings?: OutsideStepTimings;
}

/** Sent by Stop Recording to the auto-stop workflow, which then ends without stopping anything. */
export const recordingStoppedSignal = defineSignal('recordingStopped');

export interface PresenceSignal {
  present: boolean;
  /** The room's event number when the change happened; older signals (arriving late) are ignored. */
  seq: number;
}

/** Sent to the empty-room workflow on every change between "somebody present" and "nobody present". */
export const presenceSignal = defineSignal<[PresenceSignal]>('presence');
/** The room ended or was deleted another way: the empty-room workflow has nothing left to time. */
export const roomClosedSignal = defineSignal('roomClosed');
/** What the empty-room workflow believes, and whether its timer is running (tests wait on it before skipping time). */
export const emptyRoomStateQuery = defineQuery<PresenceSignal & { timing: boolean }>('emptyRoomState');

export interface EmptyRoomInput {
  tenantId: string;
  roomId: string;
  /** Carried across continue-as-new. */
  state?: PresenceSignal;
}

/** What the provider says about the file to fetch. Resolved inside the transfer activity at each attempt (the signed
 * link is a secret, docs/decisions.md §13): it never crosses a workflow boundary. */
export interface RecordingSource {
  url: string;
  contentType: string;
  durationSeconds: number | null;
  sizeBytes: number | null;
}

/**
 * Ids only (docs/decisions.md §13): the transfer activity reads the notification's link from the recording's row (sealed) or
 * asks the provider for a fresh one itself, at each attempt (docs/decisions.md §7).
 * tenantId and roomId give the retention child its search attributes.
 */
export interface IngestRecordingInput {
  recordingId: string;
  tenantId: string;
  roomId: string;
  upstreamRecordingId: string;
  /** How long transient upstream/storage failures are retried (INGEST_RETRY_WINDOW, docs/decisions.md §7), in seconds. */
  retryWindowSeconds: number;
  /** Shorter database-step timings (fault tests only; StepTimings), passed on to the post-meeting child. Absent: the defaults. */
  stepTimings?: StepTimings;
  /** Shorter waits of the transfer (tests only; OutsideStepTimings), passed on to the post-meeting child. Absent: the defaults. */
  outsideStepTimings?: OutsideStepTimings;
}

/*
 * The retry window of a step that rides out outages (the ingestion's transfer, INGEST_RETRY_WINDOW, docs/decisions.md §7;
 * the transcription and AI steps, POST_MEETING_RETRY_WINDOW, §9), decided here once. The window itself travels in the
 * run's input or an activity's result, so the activity and the workflow read the same number; the activity is the
 * authority on it, the workflow's deadline is derived from it:
 * - the activity (src/activities/retry-window.ts) retries a transient failure while withinRetryWindow, then fails for
 *   good with retryWindowEndedReason;
 * - an attempt that stalls (a heartbeat or start-to-close timeout) never reaches that check, so the workflow gives the
 *   step a scheduleToCloseTimeout of retryWindowDeadlineMs: the window, plus one full attempt begun just before it ended.
 *   That value is recorded in every history of these workflows (ActivityTaskScheduled), so the formula stays as it is.
 */

/** Whether an attempt scheduled at `attemptScheduledMs` is still inside the window that began with the step's first. */
export function withinRetryWindow(firstScheduledMs: number, attemptScheduledMs: number, retryWindowSeconds: number): boolean {
  return attemptScheduledMs - firstScheduledMs < retryWindowSeconds * 1000;
}

/** The step's scheduleToCloseTimeout, in ms: the window, then the last attempt (at most `attemptSeconds`) begun inside it. */
export function retryWindowDeadlineMs(retryWindowSeconds: number, attemptSeconds: number): number {
  return (retryWindowSeconds + attemptSeconds) * 1000;
}

/** The reason a step failed with when its window ended, worded the same by the activity and the workflow. */
export function retryWindowEndedReason(retryWindowSeconds: number, lastFailure: string): string {
  return `still failing when the retry window of ${formatWindow(retryWindowSeconds)} ended; last failure: ${lastFailure}`;
}

/** A retry window as people read it in a failure reason: "24 h", "90 min", "45 s". */
function formatWindow(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

export interface AutoStopInput {
  recordingId: string;
  maxDurationMinutes: number;
  /** For the run's search attributes and summaries; absent in runs started before they existed. */
  tenantId?: string;
  roomId?: string;
}

export interface RetentionInput {
  recordingId: string;
  /**
   * When the retention ends (ISO 8601; null: nothing to purge), as the ingestion's markRecordingReady read it: the
   * first sleep starts from it. Absent in runs started before ingestion passed it: they read it first.
   */
  purgeAt?: string | null;
  /** Lets the purge find the files by key prefix even if the row is gone (its room was deleted). */
  tenantId?: string;
  roomId?: string;
}

/** One line for the Temporal UI's run list (staticSummary, docs/decisions.md §13): room names are user text, so bounded. */
export function roomLabel(room: { id: string; name?: string | null }): string {
  // Cut by code points: a cut inside a surrogate pair ("𝓣", two UTF-16 units) leaves a lone surrogate, which
  // PostgreSQL's jsonb (the hand-over row holding the summary) refuses, so a Delete Room answered 500 (found by the fuzzer).
  const chars = Array.from(room.name?.replace(/\s+/g, ' ').trim() ?? '');
  return chars.length > 0 ? `"${chars.length > 60 ? `${chars.slice(0, 59).join('')}…` : chars.join('')}"` : room.id;
}

/**
 * Retry policy of activities that only touch the database (docs/decisions.md §15): they wait out the database, however long it
 * is away (no attempt limit; 1 s, 2 s, 4 s … capped at 30 s), so a PostgreSQL outage of hours delays a pipeline and
 * never fails or drops it. Only an error no retry can fix is non-retryable: the workflow adds those types per use.
 */
export const DATABASE_STEP_RETRY = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
} as const;

/**
 * Shorter timings for a run's database steps than DATABASE_STEP_RETRY and its 30 s attempt bound, carried in the run's
 * input (IngestRecordingInput.stepTimings, PostMeetingInput.stepTimings) so that a replay builds the same commands.
 * No production start sets them: every run then gets the defaults, the commands exactly as before the field existed.
 * The fault tests set them so that an outage of eleven attempts takes seconds, on the real server (docs/decisions.md §15).
 */
export interface StepTimings {
  /** The first retry's delay, in ms (default 1 s); each next one doubles. */
  initialIntervalMs: number;
  /** The cap of the delays, in ms (default 30 s). */
  maximumIntervalMs: number;
  /** One attempt at most, in ms (default 30 s): a paused database is noticed after this long. */
  attemptTimeoutMs: number;
}

/** The activity options of a database step: each attempt bounded, the attempts not (DATABASE_STEP_RETRY). */
export function databaseStep(nonRetryableErrorTypes: string[] = [], timings?: StepTimings) {
  if (timings) {
    const { initialIntervalMs, maximumIntervalMs, attemptTimeoutMs } = timings;
    const retry = { ...DATABASE_STEP_RETRY, initialInterval: initialIntervalMs, maximumInterval: maximumIntervalMs, nonRetryableErrorTypes };
    return { startToCloseTimeout: attemptTimeoutMs, retry } as const;
  }
  return { startToCloseTimeout: '30 seconds', retry: { ...DATABASE_STEP_RETRY, nonRetryableErrorTypes } } as const;
}

/**
 * Shorter Temporal-side waits for a run's steps that call a service outside the database (ingestion's transfer, the
 * transcription and AI providers, a webhook POST), carried in the run's input (IngestRecordingInput, PostMeetingInput,
 * TranscriptionInput, WebhookDeliveryInput: `outsideStepTimings`) as StepTimings are, so that a replay builds the same
 * commands. No production start sets them (SHORT_OUTSIDE_STEP_TIMINGS, src/config.ts, is refused outside NODE_ENV=test):
 * every run then gets its step's own heartbeat timeout and retry policy, the commands exactly as before the field
 * existed. Why they exist: the fault tests of a worker killed mid-step wait out a heartbeat timeout (15 s, a webhook
 * attempt's 10 s) and the first retry delay (up to 10 s), and the tests of an outage that outlasts its retry window wait
 * out backoff that doubles from seconds; on the real Temporal dev server that is real time, most of those tests' length.
 */
export interface OutsideStepTimings {
  /** Replaces the step's heartbeat timeout, in ms (a step without one gets none). */
  heartbeatTimeoutMs: number;
  /** The first retry's delay, in ms; each next one doubles (the step's backoffCoefficient). */
  initialIntervalMs: number;
  /** The cap of the retry delays, in ms. */
  maximumIntervalMs: number;
}

/**
 * The options `timings` lays over an outside step's own (its proxy's: heartbeatTimeout, retry), for executeWithOptions,
 * which merges them in deeply (the step keeps its non-retryable types and backoff coefficient). None when `timings` is
 * absent: the step's options unchanged. `heartbeats`: whether the step has a heartbeat timeout to replace.
 */
export function outsideStepOverrides(timings: OutsideStepTimings | undefined, { heartbeats }: { heartbeats: boolean }) {
  if (!timings) return {};
  const retry = { initialInterval: timings.initialIntervalMs, maximumInterval: timings.maximumIntervalMs };
  return heartbeats ? { heartbeatTimeout: timings.heartbeatTimeoutMs, retry } : { retry };
}

/**
 * Retry policy of steps that touch the database and one service outside it (the media provider, a webhook receiver):
 * as DATABASE_STEP_RETRY, no attempt limit, but capped at 1 minute, since the other side's outage is the likelier one.
 * The workflow sets each step's timeouts and adds the non-retryable types it expects.
 */
export const OUTSIDE_SERVICE_STEP_RETRY = { ...DATABASE_STEP_RETRY, maximumInterval: '1 minute' } as const;

/**
 * Retry policy of ingestion's transfer (download from the provider, stream into S3; workflows/recording-ingest.ts):
 * 5 s doubling, capped at 10 min, no attempt limit; INGEST_RETRY_WINDOW ends it (the activity makes a failure after the
 * window permanent, docs/decisions.md §7). The workflow adds the non-retryable types.
 */
export const INGEST_TRANSFER_RETRY = { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' } as const;

/**
 * Retry policy of the transcription provider's call (workflows/transcription.ts, and post-meeting's own transcription):
 * 10 s doubling, capped at 5 min, until POST_MEETING_RETRY_WINDOW has passed (docs/decisions.md §9).
 */
export const TRANSCRIBE_RETRY = { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' } as const;

/**
 * Retry policy of the AI analyser's call (workflows/post-meeting.ts): 2 s doubling, capped at 5 min, until
 * POST_MEETING_RETRY_WINDOW has passed (docs/decisions.md §9).
 */
export const ANALYSIS_RETRY = { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' } as const;
