// Every entity the ORM knows. A module adds its entity here and a migration in src/db/migrations/.
import { ParticipantSchema } from '../modules/participants/participant.entity.ts';
import { RecordingSchema } from '../modules/recordings/recording.entity.ts';
import { RoomSchema } from '../modules/rooms/room.entity.ts';
import { RefreshTokenSchema } from '../modules/auth/refresh-token.entity.ts';
import { TenantSchema } from '../modules/tenants/tenant.entity.ts';
import { SigningKeySchema } from './signing-key.entity.ts';
import { TranscriptSchema } from '../modules/transcripts/transcript.entity.ts';
import { PostMeetingResultSchema } from '../modules/post-meeting/post-meeting-result.entity.ts';
import { WebhookDeliveryAttemptSchema, WebhookDeliverySchema } from '../modules/deliveries/delivery.entity.ts';
import { RateLimitWindowSchema } from '../http/rate-limit.entity.ts';
import { WorkflowHandoverSchema } from '../handover/handover.entity.ts';
import { ChatMessageSchema, RaisedHandSchema, RealtimeConnectionSchema, RoomEventSchema, RoomEventSequenceSchema } from '../realtime/realtime.entity.ts';

export const ENTITIES = [TenantSchema, RefreshTokenSchema, SigningKeySchema, RoomSchema, ParticipantSchema, RecordingSchema,
  RealtimeConnectionSchema, RaisedHandSchema, ChatMessageSchema, RoomEventSequenceSchema, RoomEventSchema,
  TranscriptSchema, PostMeetingResultSchema, WebhookDeliverySchema, WebhookDeliveryAttemptSchema, RateLimitWindowSchema,
  WorkflowHandoverSchema];
