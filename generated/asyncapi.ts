// DO NOT EDIT: generated from spec/asyncapi.yaml by `npm run generate` (scripts/generate.ts).
// Change the spec and regenerate; `node scripts/check-generated.ts` fails when this file is stale.

export interface components {
    schemas: {
        /**
         * Format: uuid
         * @description A Convene identifier (UUID, version 7).
         * @example 0192f0a4-7c1e-7b3a-9d2e-4f5a6b7c8d9e
         */
        Id: string;
        /**
         * Format: date-time
         * @description ISO 8601 UTC timestamp.
         * @example 2025-01-15T10:30:00.000Z
         */
        Timestamp: string;
        /**
         * @description A participant's role. `viewer` receives events but cannot chat or raise a hand.
         * @enum {string}
         */
        Role: "host" | "participant" | "viewer";
        /**
         * @description The event's number in its room: 1 for the room's first event, one more for each event after it, the
         *     same on every connection and API instance. Remember the last one seen to resume (`resume_from`).
         * @example 42
         */
        Seq: number;
        /** @description No data. An empty object. */
        EmptyData: Record<string, never>;
        /** @description The JSON error body of an HTTP refusal (for example a WebSocket upgrade refused before the upgrade). */
        ErrorEnvelope: {
            /** ErrorEnvelopeError */
            error: {
                /** @description Machine-readable error code (for example `UNAUTHORIZED`, `TOKEN_EXPIRED`, `FORBIDDEN`, `NOT_FOUND`). */
                code: string;
                /** @description Human-readable explanation. */
                message: string;
                /** @description Further information, for example one entry per validation violation. */
                details?: unknown;
                /** @description The request's id, also sent as the `X-Request-Id` header. */
                request_id: string;
            };
        };
        /** @description A participant as seen by the other members of its room. */
        ParticipantSummary: {
            id: components["schemas"]["Id"];
            display_name: string;
            role: components["schemas"]["Role"];
        };
        /** @description The room's recording in progress. */
        ActiveRecording: {
            recording_id: components["schemas"]["Id"];
            started_at: components["schemas"]["Timestamp"];
        };
        RoomSnapshotData: {
            /** @description The participants present (with an open WebSocket) in the room, the receiver included. */
            participants: components["schemas"]["ParticipantSummary"][];
            /** @description Ids of the present participants whose hand is raised, in the order they raised it. */
            raised_hands: components["schemas"]["Id"][];
            /** @description The recording in progress, or null when the room is not being recorded. */
            recording: components["schemas"]["ActiveRecording"] | null;
        };
        ParticipantLeftData: {
            id: components["schemas"]["Id"];
        };
        ChatMessageData: {
            id: components["schemas"]["Id"];
            /** @description The participant who sent the message. */
            sender_id: components["schemas"]["Id"];
            text: string;
            /** @description When the server accepted the message. */
            timestamp: components["schemas"]["Timestamp"];
        };
        HandData: {
            participant_id: components["schemas"]["Id"];
        };
        RecordingRefData: {
            recording_id: components["schemas"]["Id"];
        };
        RoomEndedData: {
            room_id: components["schemas"]["Id"];
            ended_at: components["schemas"]["Timestamp"];
        };
        ErrorData: {
            /**
             * ErrorEventCode
             * @description Why the client message was refused:
             *     `INVALID_MESSAGE` (not JSON, not an `{event, data}` object, or `data` fails the event's schema),
             *     `UNKNOWN_EVENT` (not a client event), `CHAT_DISABLED` (the room's `chat_enabled` is false),
             *     `FORBIDDEN` (the sender's role may not do this), `INTERNAL_ERROR` (the server could not process it).
             * @enum {string}
             */
            code: "INVALID_MESSAGE" | "UNKNOWN_EVENT" | "CHAT_DISABLED" | "FORBIDDEN" | "INTERNAL_ERROR";
            /** @description Human-readable explanation. */
            message: string;
        };
        ResyncRequiredData: {
            /** @description The `resume_from` the client asked for. */
            resume_from: number;
            /**
             * ResyncReason
             * @description `expired`: some event after `resume_from` is no longer kept (older than `WS_RESUME_WINDOW`, or more
             *     than 1,000 events ago). `unknown`: `resume_from` is beyond the room's last event.
             * @enum {string}
             */
            reason: "expired" | "unknown";
        };
        ResumeData: {
            /** @description The last `seq` the client saw (of an event or a `room.snapshot`). */
            resume_from: number;
        };
        ChatSendData: {
            /** @description The message, 1 to 4000 characters (Unicode code points). */
            text: string;
        };
        RoomSnapshotEvent: {
            /** @constant */
            event: "room.snapshot";
            /**
             * @description The `seq` of the room's last event this snapshot reflects (0 before the room's first event). Not an
             *     event of its own: the next event has `seq` one more. Resume from it.
             */
            seq: number;
            data: components["schemas"]["RoomSnapshotData"];
        };
        ParticipantJoinedEvent: {
            /** @constant */
            event: "participant.joined";
            seq: components["schemas"]["Seq"];
            data: components["schemas"]["ParticipantSummary"];
        };
        ParticipantLeftEvent: {
            /** @constant */
            event: "participant.left";
            seq: components["schemas"]["Seq"];
            data: components["schemas"]["ParticipantLeftData"];
        };
        ChatMessageEvent: {
            /** @constant */
            event: "chat.message";
            seq: components["schemas"]["Seq"];
            data: components["schemas"]["ChatMessageData"];
        };
        HandRaisedEvent: {
            /** @constant */
            event: "hand.raised";
            seq: components["schemas"]["Seq"];
            data: components["schemas"]["HandData"];
        };
        HandLoweredEvent: {
            /** @constant */
            event: "hand.lowered";
            seq: components["schemas"]["Seq"];
            data: components["schemas"]["HandData"];
        };
        RecordingStartedEvent: {
            /** @constant */
            event: "recording.started";
            seq: components["schemas"]["Seq"];
            data: components["schemas"]["RecordingRefData"];
        };
        RecordingStoppedEvent: {
            /** @constant */
            event: "recording.stopped";
            seq: components["schemas"]["Seq"];
            data: components["schemas"]["RecordingRefData"];
        };
        RoomEndedEvent: {
            /** @constant */
            event: "room.ended";
            seq: components["schemas"]["Seq"];
            data: components["schemas"]["RoomEndedData"];
        };
        PongEvent: {
            /** @constant */
            event: "pong";
            data: components["schemas"]["EmptyData"];
        };
        ErrorEvent: {
            /** @constant */
            event: "error";
            data: components["schemas"]["ErrorData"];
        };
        ResyncRequiredEvent: {
            /** @constant */
            event: "resync_required";
            data: components["schemas"]["ResyncRequiredData"];
        };
        ChatSendEvent: {
            /** @constant */
            event: "chat.send";
            data: components["schemas"]["ChatSendData"];
        };
        /** @description `data` may be omitted; when present it is an empty object. */
        HandRaiseEvent: {
            /** @constant */
            event: "hand.raise";
            data?: components["schemas"]["EmptyData"];
        };
        /** @description `data` may be omitted; when present it is an empty object. */
        HandLowerEvent: {
            /** @constant */
            event: "hand.lower";
            data?: components["schemas"]["EmptyData"];
        };
        /** @description `data` may be omitted; when present it is an empty object. */
        PingEvent: {
            /** @constant */
            event: "ping";
            data?: components["schemas"]["EmptyData"];
        };
        ResumeEvent: {
            /** @constant */
            event: "resume";
            data: components["schemas"]["ResumeData"];
        };
        /** @description HTTP headers of every delivery attempt (header names are case-insensitive). */
        WebhookHeaders: {
            /** @description `sha256=` followed by the lowercase hex HMAC-SHA256 of `<X-Convene-Timestamp>.<raw body>`, keyed with the webhook `secret`. */
            "X-Convene-Signature": string;
            /**
             * @description Unix time in seconds when this attempt was signed (each attempt is signed anew).
             * @example 1736937000
             */
            "X-Convene-Timestamp": string;
            /**
             * @description The body's `event`.
             * @enum {string}
             */
            "X-Convene-Event": "meeting.recording_ready" | "webhook.test";
            /** @description The delivery id, the same on every attempt of one delivery; use it to deduplicate. */
            "X-Convene-Delivery": components["schemas"]["Id"];
            /** @constant */
            "Content-Type": "application/json";
            /** @constant */
            "User-Agent": "Convene-Webhook/1.0";
        };
        /** @description The room the recording belongs to. */
        WebhookMeeting: {
            id: components["schemas"]["Id"];
            name: string;
            /** @description When the room was created. */
            started_at: components["schemas"]["Timestamp"];
            /** @description When the room ended, or null when it is still active. */
            ended_at: components["schemas"]["Timestamp"] | null;
            /** @description From `started_at` to `ended_at` (to the payload's `timestamp` while the room is still active). */
            duration_seconds: number;
            /** @description Participants added to the room and not removed (docs/decisions.md §10). */
            participant_count: number;
        };
        WebhookRecording: {
            id: components["schemas"]["Id"];
            duration_seconds: number;
            size_bytes: number;
            /**
             * Format: uri
             * @description Presigned download URL, valid until `expires_at`.
             */
            download_url: string;
            /**
             * @description Path of the API endpoint that issues a fresh download URL (`/api/v1/recordings/{id}/download`).
             * @example /api/v1/recordings/0192f0a4-7c1e-7b3a-9d2e-4f5a6b7c8d9e/download
             */
            download_api: string;
            expires_at: components["schemas"]["Timestamp"];
        };
        TranscriptSegment: {
            /** @description Seconds from the start of the recording. */
            start: number;
            /** @description Seconds from the start of the recording. */
            end: number;
            text: string;
        };
        WebhookTranscript: {
            id: components["schemas"]["Id"];
            /** @description The full transcript text. */
            text: string;
            word_count: number;
            /**
             * @description BCP 47 language tag.
             * @example en-US
             */
            language: string;
            /**
             * @description Id of the transcription provider that produced the transcript.
             * @example openai
             */
            provider: string;
            segments: components["schemas"]["TranscriptSegment"][];
        };
        /** @description One part of the post-meeting processing that failed. */
        WebhookError: {
            /**
             * WebhookErrorField
             * @description The payload field that is null or empty because of this failure.
             * @enum {string}
             */
            field: "recording" | "transcript" | "summary" | "action_items";
            /** @description Machine-readable reason, for example `transcription_failed`, `ai_processing_failed`, `recording_unavailable`. */
            code: string;
            message: string;
        };
        /**
         * @description Body of the `webhook.test` event. It is signed and sent exactly like `meeting.recording_ready` (verify it
         *     the same way) and carries no meeting data.
         */
        WebhookTestPayload: {
            /** @constant */
            event: "webhook.test";
            /** @description When the payload was generated. */
            timestamp: components["schemas"]["Timestamp"];
            tenant: components["schemas"]["WebhookTenant"];
        };
        /** @description The tenant whose webhook this is. */
        WebhookTenant: {
            id: components["schemas"]["Id"];
        };
        /**
         * @description Body of the `meeting.recording_ready` webhook. `recording`, `transcript`, `summary` and `action_items`
         *     are present only when the matching `include_*` flag of `post_meeting_webhook` is true.
         *
         *     Graceful degradation: when a part of the processing fails, the webhook is still delivered with what is
         *     available; the failed field is null (`recording`, `transcript`, `summary`) or empty (`action_items`)
         *     and `errors` holds one entry per failure. `errors` is present only when something failed.
         *
         *     Signature check for receivers: compute HMAC-SHA256 over the string `<X-Convene-Timestamp>.<raw body>`
         *     with the webhook `secret`, hex-encode it, compare with the part of `X-Convene-Signature` after
         *     `sha256=` in constant time, verify against the raw bytes received (not a re-serialized object), and
         *     reject timestamps more than 300 seconds away from the current time.
         */
        MeetingRecordingReadyPayload: {
            /** @constant */
            event: "meeting.recording_ready";
            /** @description When the payload was generated. */
            timestamp: components["schemas"]["Timestamp"];
            meeting: components["schemas"]["WebhookMeeting"];
            recording?: components["schemas"]["WebhookRecording"] | null;
            transcript?: components["schemas"]["WebhookTranscript"] | null;
            /** @description AI-generated summary, or null when summarization failed. */
            summary?: string | null;
            /** @description Extracted action items; empty when extraction failed. */
            action_items?: string[];
            errors?: components["schemas"]["WebhookError"][];
        };
        UpstreamSignatureHeaders: {
            /** @description Lowercase hex HMAC-SHA256 of the raw request body, keyed with the shared secret. */
            "X-Upstream-Signature": string;
        };
        /** @description Body of the upstream provider's `recording.ready` notification. */
        RecordingReadyNotification: {
            /** @constant */
            type: "recording.ready";
            /** @description The provider's recording identifier (stored as `upstream_recording_id`). */
            recording_id: string;
            /** @description The Convene room id. */
            meeting_id: components["schemas"]["Id"];
            /**
             * Format: uri
             * @description Temporary download URL of the recording file.
             */
            url: string;
            duration_seconds: number;
            size_bytes: number;
            /**
             * @description MIME type of the file.
             * @example audio/ogg
             */
            content_type: string;
        };
        RecordingReadyAcceptedBody: {
            /** @description Always `true`. */
            received: boolean;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}

export type Id = components["schemas"]["Id"];
export type Timestamp = components["schemas"]["Timestamp"];
export type Role = components["schemas"]["Role"];
export type Seq = components["schemas"]["Seq"];
export type EmptyData = components["schemas"]["EmptyData"];
export type ErrorEnvelope = components["schemas"]["ErrorEnvelope"];
export type ParticipantSummary = components["schemas"]["ParticipantSummary"];
export type ActiveRecording = components["schemas"]["ActiveRecording"];
export type RoomSnapshotData = components["schemas"]["RoomSnapshotData"];
export type ParticipantLeftData = components["schemas"]["ParticipantLeftData"];
export type ChatMessageData = components["schemas"]["ChatMessageData"];
export type HandData = components["schemas"]["HandData"];
export type RecordingRefData = components["schemas"]["RecordingRefData"];
export type RoomEndedData = components["schemas"]["RoomEndedData"];
export type ErrorData = components["schemas"]["ErrorData"];
export type ResyncRequiredData = components["schemas"]["ResyncRequiredData"];
export type ResumeData = components["schemas"]["ResumeData"];
export type ChatSendData = components["schemas"]["ChatSendData"];
export type RoomSnapshotEvent = components["schemas"]["RoomSnapshotEvent"];
export type ParticipantJoinedEvent = components["schemas"]["ParticipantJoinedEvent"];
export type ParticipantLeftEvent = components["schemas"]["ParticipantLeftEvent"];
export type ChatMessageEvent = components["schemas"]["ChatMessageEvent"];
export type HandRaisedEvent = components["schemas"]["HandRaisedEvent"];
export type HandLoweredEvent = components["schemas"]["HandLoweredEvent"];
export type RecordingStartedEvent = components["schemas"]["RecordingStartedEvent"];
export type RecordingStoppedEvent = components["schemas"]["RecordingStoppedEvent"];
export type RoomEndedEvent = components["schemas"]["RoomEndedEvent"];
export type PongEvent = components["schemas"]["PongEvent"];
export type ErrorEvent = components["schemas"]["ErrorEvent"];
export type ResyncRequiredEvent = components["schemas"]["ResyncRequiredEvent"];
export type ChatSendEvent = components["schemas"]["ChatSendEvent"];
export type HandRaiseEvent = components["schemas"]["HandRaiseEvent"];
export type HandLowerEvent = components["schemas"]["HandLowerEvent"];
export type PingEvent = components["schemas"]["PingEvent"];
export type ResumeEvent = components["schemas"]["ResumeEvent"];
export type WebhookHeaders = components["schemas"]["WebhookHeaders"];
export type WebhookMeeting = components["schemas"]["WebhookMeeting"];
export type WebhookRecording = components["schemas"]["WebhookRecording"];
export type TranscriptSegment = components["schemas"]["TranscriptSegment"];
export type WebhookTranscript = components["schemas"]["WebhookTranscript"];
export type WebhookError = components["schemas"]["WebhookError"];
export type WebhookTestPayload = components["schemas"]["WebhookTestPayload"];
export type WebhookTenant = components["schemas"]["WebhookTenant"];
export type MeetingRecordingReadyPayload = components["schemas"]["MeetingRecordingReadyPayload"];
export type UpstreamSignatureHeaders = components["schemas"]["UpstreamSignatureHeaders"];
export type RecordingReadyNotification = components["schemas"]["RecordingReadyNotification"];
export type RecordingReadyAcceptedBody = components["schemas"]["RecordingReadyAcceptedBody"];

/** Every message the Convene server sends on the room WebSocket, discriminated by `event`. */
export type ServerMessage =
    | RoomSnapshotEvent
    | ParticipantJoinedEvent
    | ParticipantLeftEvent
    | ChatMessageEvent
    | HandRaisedEvent
    | HandLoweredEvent
    | RecordingStartedEvent
    | RecordingStoppedEvent
    | RoomEndedEvent
    | ErrorEvent
    | ResyncRequiredEvent
    | PongEvent;

/** Every message a client may send on the room WebSocket, discriminated by `event`. */
export type ClientMessage =
    | ChatSendEvent
    | HandRaiseEvent
    | HandLowerEvent
    | ResumeEvent
    | PingEvent;

export type ServerEventName = ServerMessage['event'];
export type ClientEventName = ClientMessage['event'];
export type ServerMessageOf<E extends ServerEventName> = Extract<ServerMessage, { event: E }>;
export type ClientMessageOf<E extends ClientEventName> = Extract<ClientMessage, { event: E }>;

export const SERVER_EVENTS = [
    "room.snapshot",
    "participant.joined",
    "participant.left",
    "chat.message",
    "hand.raised",
    "hand.lowered",
    "recording.started",
    "recording.stopped",
    "room.ended",
    "error",
    "resync_required",
    "pong",
] as const satisfies readonly ServerEventName[];

export const CLIENT_EVENTS = [
    "chat.send",
    "hand.raise",
    "hand.lower",
    "resume",
    "ping",
] as const satisfies readonly ClientEventName[];

/** WebSocket close codes (the room channel's `x-close-codes`). */
export const CloseCode = {
    NORMAL: 1000,
    SERVER_SHUTDOWN: 1001,
    POLICY_VIOLATION: 1008,
    MESSAGE_TOO_BIG: 1009,
    INTERNAL_ERROR: 1011,
    REPLACED_BY_DUPLICATE: 4002,
    PARTICIPANT_REMOVED: 4003,
    ROOM_ENDED: 4004,
    TOKEN_EXPIRED: 4005,
    REPLACED_BY_NEWER_SOCKET: 4006,
} as const;
export type CloseCode = (typeof CloseCode)[keyof typeof CloseCode];

/** Webhooks Convene sends (body types). */
export type OutgoingWebhookPayload =
    | MeetingRecordingReadyPayload
    | WebhookTestPayload;

/** Webhooks Convene receives (body types). */
export type IncomingWebhookPayload =
    | RecordingReadyNotification;
