// What an SDK flow (test/sdk/*.flow.ts, flow.py) is given and reports, shared by the flows and their tests.

export interface FlowOptions {
  baseUrl: string;
  adminKey: string;
  /** Where the tenant's post-meeting webhook points (a receiver the caller runs). */
  webhookUrl: string;
  /** The secret the flow gives that webhook (the receiver verifies signatures with it). */
  webhookSecret: string;
  log: (line: string) => void;
}

/** What the flow saw, for the test to check against the server's own state. */
export interface FlowResult {
  tenantId: string;
  /** The tenant as read back after the tenant renamed itself and the operator changed a limit. */
  updated: { name: string; maxConcurrentRooms: number };
  roomId: string;
  participantIds: string[];
  bulkResults: Array<{ success: boolean }>;
  recordingId: string;
  /** Download Recording while recording (202) and once ready (200), as the client parsed them. */
  pendingDownload: { status: string; message?: string; downloadUrl?: string };
  download: { status: string; downloadUrl?: string; fileSize?: number | null; duration?: number | null; provider?: string };
  downloadedBytes: number;
  /** The transcript post-meeting processing made of the recording (Get Recording Transcript, polled until finished). */
  postMeetingTranscript: { id: string; status: string; segments: number };
  /** List Post-Meeting Transcripts of the room. */
  listedPostMeetingTranscripts: Array<{ id: string; recordingId: string; status: string }>;
  /** Queue Transcription (its 202 answer), then Get Transcript polled until finished. */
  queuedTranscript: { id: string; queuedStatus: string; recordingId: string; status: string; segments: number };
  /** List Transcription Providers. */
  providers: { ids: string[]; defaultProvider: string };
  /** The recording's delivery as List Webhook Deliveries showed it, then Get Webhook Delivery once finished. */
  delivery: {
    id: string;
    listedRecordingId: string | null;
    status: string;
    attemptCount: number;
    attempts: Array<{ attempt: number; status: string; responseStatusCode: number | null }>;
  };
  /** Resend Webhook Delivery (its 202 answer), then Get Webhook Delivery of the new one once finished. */
  resent: { id: string; resentFrom: string | null; queuedStatus: string; status: string };
  /** The test event sent right after the webhook was configured (Send Test Webhook), as the delivery log shows it. */
  testEvent: { id: string; event: string; queuedStatus: string; status: string; attemptCount: number };
  rotatedKeyWorks: boolean;
  oldKeyStatus: number;
  deletedStatus: number;
}
