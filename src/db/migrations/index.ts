// Applied in this order; never edit a migration that has landed, add a new one (scripts/schema-diff.ts prints the SQL).
import { Migration20261121Initial } from './20261121-initial.ts';
import { Migration20261121RoomsParticipants } from './20261121-rooms-participants.ts';
import { Migration20261121Recordings } from './20261121-recordings.ts';
import { Migration20261121Websocket } from './20261121-websocket.ts';
import { Migration20261123PostMeeting } from './20261123-post-meeting.ts';
import { Migration20261123WebhookDeliveries } from './20261123-webhook-deliveries.ts';
import { Migration20261123RateLimits } from './20261123-rate-limits.ts';
import { Migration20261125Handover } from './20261125-handover.ts';
import { Migration20261125SealedSecretsAd } from './20261125-sealed-secrets-ad.ts';
import { Migration20261125RecordingSourceUrl } from './20261125-recording-source-url.ts';
import { Migration20261125PostMeetingRuns } from './20261125-post-meeting-runs.ts';
import { Migration20261128TestWebhookEvent } from './20261128-test-webhook-event.ts';
import { Migration20261128HandoverTraceContext } from './20261128-handover-trace-context.ts';
import { Migration20261128RoomEventLog } from './20261128-room-event-log.ts';

export const MIGRATIONS = [
  { name: '20261121-initial', class: Migration20261121Initial },
  { name: '20261121-rooms-participants', class: Migration20261121RoomsParticipants },
  { name: '20261121-recordings', class: Migration20261121Recordings },
  { name: '20261121-websocket', class: Migration20261121Websocket },
  { name: '20261123-post-meeting', class: Migration20261123PostMeeting },
  { name: '20261123-webhook-deliveries', class: Migration20261123WebhookDeliveries },
  { name: '20261123-rate-limits', class: Migration20261123RateLimits },
  { name: '20261125-handover', class: Migration20261125Handover },
  { name: '20261125-sealed-secrets-ad', class: Migration20261125SealedSecretsAd },
  { name: '20261125-recording-source-url', class: Migration20261125RecordingSourceUrl },
  { name: '20261125-post-meeting-runs', class: Migration20261125PostMeetingRuns },
  { name: '20261128-test-webhook-event', class: Migration20261128TestWebhookEvent },
  { name: '20261128-handover-trace-context', class: Migration20261128HandoverTraceContext },
  { name: '20261128-room-event-log', class: Migration20261128RoomEventLog },
];
