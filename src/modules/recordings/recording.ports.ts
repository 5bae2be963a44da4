// What the recordings module needs from outside it, as the module states it: src/temporal/ implements these, so a
// workflow's signature never ripples into the service (docs/architecture.md habit 16).

/** News for a recording's running workflows. Starts are not made here: they are hand-overs (src/handover/). */
export interface RecordingOrchestrator {
  /** Tells the auto-stop timer the recording has been stopped (it then ends quietly). Best effort. */
  recordingStopped(recordingId: string): Promise<void>;
}
