// What an SDK flow (test/sdk/*.flow.ts, flow.py) is given and reports, shared by the flows and their tests.

export interface FlowOptions {
  baseUrl: string;
  adminKey: string;
  /** Where the tenant's post-meeting webhook points (a receiver the caller runs). */
  webhookUrl: string;
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
  transcriptStatus: string | 'not implemented';
  resentDeliveryId: string | 'not implemented';
  rotatedKeyWorks: boolean;
  oldKeyStatus: number;
  deletedStatus: number;
}
