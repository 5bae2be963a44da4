// Every workflow the worker registers is exported from here. Workflow code is deterministic: no Node built-ins,
// no I/O; it calls activities (src/activities/) through proxyActivities. eslint.config.js enforces the import rules
// (`npm run lint`, a step of `npm test`).
export { recordingAutoStopWorkflow } from './recording-autostop.ts';
export { recordingIngestWorkflow } from './recording-ingest.ts';
export { recordingRetentionWorkflow } from './recording-retention.ts';
export { roomRecordingStopWorkflow } from './room-recording-stop.ts';
export { emptyRoomWorkflow } from './empty-room.ts';
export { tenantPurgeWorkflow } from './tenant-purge.ts';
export { transcriptionWorkflow } from './transcription.ts';
export { postMeetingWorkflow } from './post-meeting.ts';
export { webhookDeliveryWorkflow } from './webhook-delivery.ts';
