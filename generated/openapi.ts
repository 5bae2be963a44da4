// DO NOT EDIT: generated from spec/openapi.yaml by `npm run generate` (scripts/generate.ts).
// Change the spec and regenerate; `node scripts/check-generated.ts` fails when this file is stale.

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness probe
         * @description Answers 200 as long as the process is up. Checks no dependency (see `/readyz`).
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness probe
         * @description Checks that the database, Temporal and the object store are reachable. Answers 503 with the same body shape
         *     (not the error envelope) when any of them is not, marking the failing part `error`. The answer is at most 1 s
         *     old: probes that arrive together share one round of checks, and a check that takes over 3 s is cancelled and
         *     reported as `error`, so probing often costs the dependencies nothing extra.
         */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Redirect to the documentation
         * @description The service's root sends a browser to `/docs`.
         */
        get: operations["getRoot"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics
         * @description Counters and histograms in the Prometheus text exposition format (docs/decisions.md §12): HTTP requests by
         *     operationId and status with latency histograms, open WebSockets, room events, workflow starts, outgoing
         *     webhook attempts by outcome, transcription and AI durations. docs/metrics.md lists every metric.
         *
         *     Open when the server has no `METRICS_TOKEN`; when it has one, the scraper must send
         *     `Authorization: Bearer <METRICS_TOKEN>` (anything else is `401 UNAUTHORIZED`). The token is an operator
         *     setting, not an API credential, so the operation declares no security scheme.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Human-readable API documentation
         * @description An HTML page rendering this OpenAPI document; it links the AsyncAPI page, `/docs/asyncapi`. Self-contained: the
         *     page makes no request to any other host (no CDN, font or logo; a `Content-Security-Policy` enforces it). Served
         *     gzip-compressed when the client accepts it, with an `ETag`: a request with a matching `If-None-Match` gets 304.
         */
        get: operations["getDocs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/asyncapi": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Human-readable AsyncAPI documentation
         * @description An HTML page rendering the AsyncAPI document (the room WebSocket and the webhooks), generated into
         *     `generated/asyncapi.html` by `npm run generate`. Self-contained: it loads nothing from other sites.
         */
        get: operations["getAsyncApiDocs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/openapi.yaml": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This OpenAPI document */
        get: operations["getOpenApiSpec"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/asyncapi.yaml": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The AsyncAPI document (WebSocket messages, outgoing webhooks) */
        get: operations["getAsyncApiSpec"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/.well-known/jwks.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Public keys that verify Convene's tokens
         * @description The JSON Web Key Set of the Ed25519 keys that sign Convene's JWTs. Tokens name their key in the `kid` header;
         *     the algorithm is always `EdDSA`. More than one key is listed while keys rotate.
         */
        get: operations["getJwks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Exchange an API key for tenant tokens
         * @description Returns a short-lived tenant access token (usable as `Authorization: Bearer` wherever `X-API-Key` is) and a
         *     longer-lived refresh token. The API key travels in the body, so this operation needs no other credential.
         */
        post: operations["issueToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Exchange a refresh token for a new token set
         * @description Works for tenant and participant refresh tokens. Refresh tokens rotate: the response carries a new refresh
         *     token and the presented one is retired. Presenting a retired (reused), expired, revoked or malformed refresh
         *     token answers `401 INVALID_REFRESH_TOKEN`, and reuse also revokes every token of that family. For a
         *     participant's refresh token the response also carries a new `auth_token`.
         */
        post: operations["refreshToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a tenant
         * @description Operator only (`X-Admin-Key`). Returns the tenant with its API key, which is shown only here and on
         *     rotation. Limits not given take their defaults. When the deployment has no `ADMIN_API_KEY` configured, this
         *     operation answers `403 FORBIDDEN`.
         */
        post: operations["createTenant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Tenant id. */
                id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        /**
         * Get a tenant
         * @description Returns the calling tenant with its limits and full configuration (secrets masked). A tenant can read only
         *     itself: another id answers `403 FORBIDDEN`. Participant tokens are refused (403).
         */
        get: operations["getTenant"];
        put?: never;
        post?: never;
        /**
         * Delete a tenant and all its data
         * @description Permanently deletes the calling tenant. Its credentials stop working at once; its rooms, participants,
         *     recordings (including stored objects), transcripts and webhook deliveries are removed durably in the
         *     background. Another tenant's id answers `403 FORBIDDEN`.
         */
        delete: operations["deleteTenant"];
        options?: never;
        head?: never;
        /**
         * Update a tenant's name or limits
         * @description Only the provided fields change. A tenant (API key or tenant token) may change its own `name`; changing any
         *     limit needs the operator's `X-Admin-Key` (a tenant sending a limit gets `403 FORBIDDEN`). With the admin key,
         *     any tenant id may be used and an unknown one is `404 NOT_FOUND`. Generated clients that send their one
         *     configured key in every API-key header (typescript-fetch sends it as both `X-API-Key` and `X-Admin-Key`)
         *     work with either key: an `X-Admin-Key` equal to the `X-API-Key` beside it counts as the admin key only if it
         *     is the admin key, and otherwise as the tenant's API key (docs/decisions.md §12).
         */
        patch: operations["updateTenant"];
        trace?: never;
    };
    "/api/v1/tenants/{id}/rotate-key": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Tenant id. */
                id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the tenant's API key
         * @description Issues a new API key, shown only in this response. The previous key stops working at once, and so does every
         *     token issued from it (tenant and participant tokens alike).
         */
        post: operations["rotateTenantKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{id}/config": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Tenant id. */
                id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change the tenant configuration (merge patch)
         * @description JSON merge patch (RFC 7396 semantics, sent as `application/json`): provided fields change, omitted fields
         *     keep their values, nested objects (`post_meeting_webhook` and its `transcription` / `ai`) merge the same way,
         *     and `null` removes a nested object. Rules checked beyond the schema (`400 VALIDATION_ERROR`):
         *
         *     - `allowed_origins`: at most 20 entries, each an `http://` or `https://` origin; wildcards only as
         *       `http://localhost:*` or `http://127.0.0.1:*`.
         *     - `transcription_language`: a BCP 47 tag supported by at least one configured provider; when a patch sets
         *       it (or the transcription provider), by the tenant's chosen `post_meeting_webhook.transcription.provider`,
         *       else by one of the providers this deployment can use (`GET /api/v1/transcription/providers`).
         *     - `post_meeting_webhook.transcription.provider` and `post_meeting_webhook.ai.provider`, when a patch sets
         *       them: a provider this deployment can serve for the tenant (configured, with a key where the vendor needs
         *       one: the operator's or the tenant's own `api_key`). Otherwise the error names the field.
         *     - `post_meeting_webhook`: once merged it must have `enabled`, `url` and `secret`. `url` must be `https` and
         *       resolve to a public address when the deployment runs in production (no loopback, private, link-local or
         *       metadata addresses); `http` and loopback are accepted otherwise.
         *
         *     Secrets (`post_meeting_webhook.secret`, provider `api_key`s) are stored encrypted and shown masked (last 4
         *     characters) in every response. A config read with Get Tenant and sent back whole changes no secret: a secret
         *     field whose value is exactly the mask shown for the stored secret keeps it; any other value starting with
         *     `****` is `400 VALIDATION_ERROR` naming the field.
         */
        patch: operations["updateTenantConfig"];
        trace?: never;
    };
    "/api/v1/rooms": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List rooms
         * @description The tenant's rooms (active and ended), newest first, with their participant counts.
         */
        get: operations["listRooms"];
        put?: never;
        /**
         * Create a room
         * @description Creates an `active` room. Names are unique among the tenant's active rooms (`409 ROOM_NAME_TAKEN`) and may not
         *     be UUIDs. Config defaults: `max_participants` = the tenant's `max_participants_per_room` (a larger value is
         *     `409 LIMIT_EXCEEDED`), `recording_enabled` false (forced true by the tenant's `force_recording`),
         *     `chat_enabled` true. Creating a room beyond `max_concurrent_rooms` active rooms is `409 LIMIT_EXCEEDED`.
         *     A room nobody joins ends after the tenant's `empty_room_timeout_minutes`.
         */
        post: operations["createRoom"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rooms/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        /**
         * Get a room
         * @description Callable by the tenant, and by a participant (any role) of this room with its `auth_token`.
         */
        get: operations["getRoom"];
        put?: never;
        post?: never;
        /**
         * Delete a room permanently
         * @description Stops the room's recording if one is running, closes its WebSocket connections, and deletes the room and its
         *     participants. Recordings made in the room are kept (they belong to the tenant).
         */
        delete: operations["deleteRoom"];
        options?: never;
        head?: never;
        /**
         * Update a room
         * @description Only the provided fields change; `config` is partial (provided config fields change, the others keep their
         *     values). An ended room is read-only (`409 ROOM_ENDED`). A new name must be free among active rooms
         *     (`409 ROOM_NAME_TAKEN`); `max_participants` above the tenant limit is `409 LIMIT_EXCEEDED`.
         */
        patch: operations["updateRoom"];
        trace?: never;
    };
    "/api/v1/rooms/{id}/end": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * End a room
         * @description Sets the room to `ended` and `ended_at`, stops its recording if one is running and closes its WebSocket
         *     connections (close code 4004); the record is kept. Ending an ended room returns it unchanged. Callable by the
         *     tenant, and by a `host` of this room with its `auth_token`.
         */
        post: operations["endRoom"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rooms/{id}/participants": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        /**
         * List a room's participants
         * @description Not paginated (bounded by the room's participant limit). Removed participants are not listed. With
         *     `active=true`, only participants present right now (with an open WebSocket) are listed. Callable by the
         *     tenant, and by a participant (any role) of this room with its `auth_token`.
         */
        get: operations["listParticipants"];
        put?: never;
        /**
         * Add a participant and issue its tokens
         * @description Adds a participant and returns its tokens: `access_token` authenticates the WebSocket (SDK), `auth_token`
         *     authenticates API calls as this participant.
         *
         *     - Early join: when `{id}` is a name with no room and the tenant's `allow_early_join` is true, an active room of
         *       that name is created (`room_created: true`, subject to `max_concurrent_rooms`). When `allow_early_join` is
         *       false, or `{id}` is a UUID of no room, the answer is `404 NOT_FOUND`.
         *     - An ended room refuses joins (`409 ROOM_ENDED`); a full room is `409 LIMIT_EXCEEDED`.
         *     - Duplicates (same `external_user_id` among the room's current participants) follow the tenant's
         *       `duplicate_participant_policy`: `reject` → `409 DUPLICATE_PARTICIPANT`; `disconnect_existing` → the earlier
         *       participant is removed; `allow` → both stay.
         *     - `should_start_recording` is true when recording is enabled for the room, the tenant forces or auto-starts
         *       recording, and no recording is active.
         */
        post: operations["addParticipant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rooms/{id}/participants/bulk": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add up to 100 participants at once
         * @description Adds each entry in order, as Add Participant would, and reports one result per entry (same order). Answers
         *     200 even when some entries fail: a failing entry has `success: false` and an `error` message (for example a
         *     missing `display_name`, a duplicate or a full room). Structural problems refuse the whole request with
         *     `400 VALIDATION_ERROR`: not 1–100 entries, unknown fields, or wrong types. The room must exist (bulk add never
         *     creates a room); an ended room is `409 ROOM_ENDED`.
         */
        post: operations["bulkAddParticipants"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rooms/{id}/participants/{pid}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
                /** @description Participant id. */
                pid: components["parameters"]["ParticipantId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove (kick) a participant
         * @description Removes the participant: its WebSocket is closed (close code 4003), `participant.left` is sent to the room, and
         *     its tokens are revoked. An ended room is read-only (`409 ROOM_ENDED`). Callable by the tenant, and by a `host`
         *     of this room with its `auth_token`.
         */
        delete: operations["removeParticipant"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rooms/{id}/participants/{pid}/token": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
                /** @description Participant id. */
                pid: components["parameters"]["ParticipantId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue new tokens for an existing participant
         * @description Issues a fresh token set for a participant of this room (a removed participant is `404 NOT_FOUND`, an ended
         *     room `409 ROOM_ENDED`). Callable by the tenant, and by the participant itself (any role) with its
         *     `auth_token`; a participant asking for another participant's tokens gets `403 FORBIDDEN`.
         */
        post: operations["issueParticipantToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rooms/{id}/recordings/start": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start recording a room
         * @description Asks the media provider to record the room. A room already being recorded is `409 RECORDING_IN_PROGRESS`; an
         *     ended room `409 ROOM_ENDED`; a room whose `config.recording_enabled` is false `400 INVALID_STATE`. The
         *     recording stops by itself after the tenant's `max_recording_duration_minutes`. `recording.started` is sent
         *     on the room's WebSocket. Callable by the tenant, and by a `host` of this room with its `auth_token`.
         */
        post: operations["startRecording"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rooms/{id}/recordings/stop": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stop the room's active recording
         * @description Stops the active recording; it moves to `processing` until the media provider reports it ready. Without an
         *     active recording the answer is `404 NO_ACTIVE_RECORDING`. `recording.stopped` is sent on the room's
         *     WebSocket. Callable by the tenant, and by a `host` of this room with its `auth_token`.
         */
        post: operations["stopRecording"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rooms/{id}/recordings/sync": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import recordings the media provider started on its own
         * @description Lists the media provider's recordings of this room and imports those Convene does not know yet.
         *     `synced_count` is the number imported; `recordings` lists them.
         */
        post: operations["syncRecordings"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/recordings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List recordings
         * @description The tenant's recordings, newest first. Soft-deleted recordings are not listed.
         */
        get: operations["listRecordings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/recordings/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Recording id. */
                id: components["parameters"]["RecordingId"];
            };
            cookie?: never;
        };
        /**
         * Get a recording
         * @description A soft-deleted recording is `404 NOT_FOUND`.
         */
        get: operations["getRecording"];
        put?: never;
        post?: never;
        /**
         * Soft-delete a recording
         * @description Marks the recording deleted: from now on it is hidden from list and get (404). Its data is kept until the
         *     tenant's `recording_retention_days` have passed, then purged.
         */
        delete: operations["deleteRecording"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/recordings/{id}/download": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Recording id. */
                id: components["parameters"]["RecordingId"];
            };
            cookie?: never;
        };
        /**
         * Get a download URL for a recording
         * @description For a `ready` or `archived` recording, answers 200 with a presigned URL valid for one hour. While the
         *     recording is `recording` or `processing`, answers 202 with a `Retry-After` header: try again later. A `failed`
         *     recording has nothing to download (`400 INVALID_STATE`).
         */
        get: operations["downloadRecording"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/recordings/{id}/archive": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Recording id. */
                id: components["parameters"]["RecordingId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move a recording to cold storage
         * @description Copies the file to the archive storage and removes the primary copy. Requires status `ready` with the file in
         *     primary storage; otherwise `400 INVALID_STATE`. It stays downloadable.
         */
        post: operations["archiveRecording"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/recordings/{id}/recover": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Recording id. */
                id: components["parameters"]["RecordingId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Re-run ingestion of a stuck recording
         * @description Fetches the recording from the media provider again (by its upstream recording id) and reprocesses it.
         *     Requires status `processing` and a known upstream recording id; otherwise `400 INVALID_STATE`.
         */
        post: operations["recoverRecording"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/recordings/{id}/transcribe": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Recording id. */
                id: components["parameters"]["RecordingId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Queue a transcription of a recording
         * @description Creates a transcript in `pending` and transcribes the recording in the background. The body is optional:
         *     the recording knows its room, so `room_id` may be left out; when sent, it must be the recording's room
         *     (`400 VALIDATION_ERROR` otherwise). `provider` is one of the ids listed by
         *     `GET /api/v1/transcription/providers` (the default provider when omitted; an unknown one is
         *     `400 VALIDATION_ERROR`). The recording must be `ready` or `archived` (`400 INVALID_STATE`). The answer comes
         *     once the transcript and the start of its workflow are stored together; the workflow starts right after (with
         *     Temporal unreachable, as soon as it is back: the request is still answered 202 and nothing is lost).
         */
        post: operations["queueTranscription"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/recordings/{id}/post-meeting": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Recording id. */
                id: components["parameters"]["RecordingId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run post-meeting processing of a recording again
         * @description Starts a new post-meeting run for the recording (docs/decisions.md §9 "Outages and re-runs"): it transcribes again
         *     unless a completed transcript of the recording exists (or `retranscribe` is true), summarises, and sends a new
         *     `meeting.recording_ready` delivery when the tenant's post-meeting webhook is enabled. Use it to turn a result
         *     with `errors[]` (a provider that was down, a key that was wrong) into a complete one. The recording must be
         *     `ready` or `archived`, and its previous run finished (`400 INVALID_STATE` otherwise). The answer comes once the
         *     result is started over as the new run and the run's start is stored with it; the run starts right after (with
         *     Temporal unreachable, as soon as it is back: the request is still answered 202 and nothing is lost). Two
         *     requests racing for the same run answer with the same run.
         */
        post: operations["rerunPostMeeting"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/recordings/{id}/transcript": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Recording id. */
                id: components["parameters"]["RecordingId"];
            };
            cookie?: never;
        };
        /**
         * Get the latest transcript of a recording
         * @description The newest `completed` transcript of the recording, else the newest one whatever its status (docs/decisions.md §9). None yet is `404 NOT_FOUND`.
         */
        get: operations["getRecordingTranscript"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/transcription/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the configured transcription providers
         * @description The providers usable by this tenant: configured by the operator, or made usable by the tenant's own
         *     `post_meeting_webhook.transcription.api_key`. `503` when the deployment has no usable provider at all.
         */
        get: operations["listTranscriptionProviders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/transcription/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Transcript id. */
                id: components["parameters"]["TranscriptId"];
            };
            cookie?: never;
        };
        /** Get a transcript */
        get: operations["getTranscript"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rooms/{id}/post-meeting-transcripts": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        /**
         * List the transcripts of a room's recordings
         * @description The transcripts post-meeting processing made for the room's (not deleted) recordings, newest first (docs/decisions.md §9; a transcript queued with Queue Transcription is not listed). Not paginated.
         */
        get: operations["listPostMeetingTranscripts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ws": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open the room's live event channel (WebSocket upgrade)
         * @description Upgrades to a WebSocket (`wss://` in production). Authenticate with a participant's `access_token` passed as
         *     the subprotocol list `Sec-WebSocket-Protocol: convene, token.<access_token>`; the server answers 101 with the
         *     subprotocol `convene`. The `token` query parameter still works but is deprecated (URLs end up in logs).
         *
         *     Before upgrading, the server checks the token (`401`), the `Origin` against the tenant's `allowed_origins`
         *     or, when the tenant has none, the operator's patterns (`403`; a request without `Origin` passes), and that
         *     the room is active and the participant not removed (`404`). Refusals are plain HTTP responses with the
         *     error envelope.
         *
         *     The messages exchanged after the upgrade (`room.snapshot`, `participant.joined`, `chat.message`, ... and the
         *     client's `chat.send`, `hand.raise`, `ping`, ...) and the close codes are described in
         *     [`/api/v1/asyncapi.yaml`](/api/v1/asyncapi.yaml).
         */
        get: operations["connectWebSocket"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/upstream/recording-ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive the media provider's `recording.ready` notification
         * @description Called by the media provider (the generic adapter's path segment is `upstream`). The signature in
         *     `X-Upstream-Signature` is verified on the raw body, in constant time, before the body is parsed: a missing or
         *     wrong signature is `401 INVALID_SIGNATURE` whatever the body. `meeting_id` is the Convene room id (unknown:
         *     `404 NOT_FOUND`); a recording Convene does not know yet is imported.
         *
         *     The answer is 202 as soon as the recording and the start of its ingestion are stored together (download from
         *     `url`, upload to permanent storage, status `ready`, then post-meeting processing per the tenant's config);
         *     the ingestion starts right after, or, while the workflow service is unreachable, as soon as it is back: the
         *     notification is still answered 202 and nothing is lost. A duplicate notification starts no second ingestion
         *     and is answered 202 as well.
         */
        post: operations["receiveUpstreamRecordingReady"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhook-deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List outgoing webhook deliveries
         * @description The tenant's post-meeting webhook deliveries, newest first, optionally filtered by status.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhook-deliveries/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook delivery id. */
                id: components["parameters"]["DeliveryId"];
            };
            cookie?: never;
        };
        /** Get a delivery with its attempts */
        get: operations["getWebhookDelivery"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhook-deliveries/{id}/resend": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook delivery id. */
                id: components["parameters"]["DeliveryId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Re-send a finished delivery
         * @description Creates a new delivery of the same event and payload (new id, `resent_from` pointing at the original),
         *     signed afresh and sent to the tenant's current `post_meeting_webhook` URL with the full retry schedule.
         *     The original must be finished (`succeeded` or `failed`) and the tenant's webhook configured and enabled;
         *     otherwise `400 INVALID_STATE`.
         */
        post: operations["resendWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event to the post-meeting webhook
         * @description Sends one signed `webhook.test` event to the tenant's configured `post_meeting_webhook.url`, now, so a receiver
         *     can be checked before any meeting: the same headers (`X-Convene-Signature`, `X-Convene-Timestamp`,
         *     `X-Convene-Event: webhook.test`, `X-Convene-Delivery`) and the same signature as a real delivery, with the body
         *     `{ "event": "webhook.test", "timestamp", "tenant": { "id" } }`. It is one attempt (no retry schedule), recorded
         *     in the delivery log like any delivery: follow it with Get Webhook Delivery. The webhook does not need to be
         *     `enabled` yet, only configured; without a URL and secret the answer is `400 INVALID_STATE`.
         */
        post: operations["sendTestWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @example 01931c60-8d2e-7f10-a1b2-c3d4e5f60718 */
        Uuid: string;
        /**
         * Format: date-time
         * @example 2024-11-20T14:00:00.000Z
         */
        Timestamp: string;
        /** @description A compact-serialised JWT. */
        Jwt: string;
        /** @description A tenant API key, `cvn_` followed by at least 32 random bytes in base64url. */
        ApiKey: string;
        /**
         * @description A stored secret shown masked, `****` followed by its last 4 characters (`********` for a secret shorter than
         *     8). Sent back unchanged in Update Tenant Config, it keeps the stored secret.
         * @example ****x7Qe
         */
        MaskedSecret: string;
        /**
         * @description 1–100 characters, unique among the tenant's active rooms, and not itself a UUID.
         * @example biology-101-week-3
         */
        RoomName: string;
        /**
         * @description `host` (may also start/stop recording, remove participants and end the room), `participant`, or `viewer`
         *     (receives events, cannot chat or raise a hand).
         * @enum {string}
         */
        Role: "host" | "participant" | "viewer";
        DisplayName: string;
        /** @description The calling application's identifier of this user; used to detect duplicate participants. */
        ExternalUserId: string;
        /** @enum {string} */
        RoomStatus: "active" | "ended";
        /**
         * @description `recording` → `processing` (stopped, waiting for the media provider) → `ready` (stored) → `archived` (cold
         *     storage). `failed` when ingestion fails after its retries.
         * @enum {string}
         */
        RecordingStatus: "recording" | "processing" | "ready" | "archived" | "failed";
        /** @enum {string} */
        TranscriptStatus: "pending" | "processing" | "completed" | "failed";
        /** @constant */
        TokenType: "Bearer";
        /**
         * @description | code | HTTP | when |
         *     |---|---|---|
         *     | `VALIDATION_ERROR` | 400 | the request fails this document or a documented rule |
         *     | `INVALID_STATE` | 400 | the resource's state forbids the operation |
         *     | `UNAUTHORIZED` | 401 | missing or invalid API key, token or admin key |
         *     | `TOKEN_EXPIRED` | 401 | expired access token |
         *     | `INVALID_REFRESH_TOKEN` | 401 | bad, expired, reused or revoked refresh token |
         *     | `INVALID_SIGNATURE` | 401 | incoming webhook signature missing or wrong |
         *     | `FORBIDDEN` | 403 | authenticated but not allowed |
         *     | `NOT_FOUND` | 404 | absent, or another tenant's (also unknown routes) |
         *     | `NO_ACTIVE_RECORDING` | 404 | stop without an active recording |
         *     | `METHOD_NOT_ALLOWED` | 405 | the path exists but not with this method; `Allow` lists the methods it has |
         *     | `UPGRADE_REQUIRED` | 426 | a plain HTTP request to `/api/v1/ws` (a WebSocket upgrade is required) |
         *     | `RECORDING_IN_PROGRESS` | 409 | start while recording |
         *     | `ROOM_ENDED` | 409 | change of or join to an ended room |
         *     | `ROOM_NAME_TAKEN` | 409 | another active room has this name |
         *     | `DUPLICATE_PARTICIPANT` | 409 | same `external_user_id` under the `reject` policy |
         *     | `LIMIT_EXCEEDED` | 409 | a tenant or room limit is reached |
         *     | `PAYLOAD_TOO_LARGE` | 413 | body over 1 MiB |
         *     | `UNSUPPORTED_MEDIA_TYPE` | 415 | body not JSON |
         *     | `RATE_LIMITED` | 429 | too many requests; see `Retry-After` |
         *     | `INTERNAL_ERROR` | 500 | unexpected failure |
         *     | `SERVICE_UNAVAILABLE` | 503 | a dependency is unreachable; retry later |
         * @enum {string}
         */
        ErrorCode: "VALIDATION_ERROR" | "INVALID_STATE" | "UNAUTHORIZED" | "TOKEN_EXPIRED" | "INVALID_REFRESH_TOKEN" | "INVALID_SIGNATURE" | "FORBIDDEN" | "NOT_FOUND" | "NO_ACTIVE_RECORDING" | "METHOD_NOT_ALLOWED" | "UPGRADE_REQUIRED" | "RECORDING_IN_PROGRESS" | "ROOM_ENDED" | "ROOM_NAME_TAKEN" | "DUPLICATE_PARTICIPANT" | "LIMIT_EXCEEDED" | "PAYLOAD_TOO_LARGE" | "UNSUPPORTED_MEDIA_TYPE" | "RATE_LIMITED" | "INTERNAL_ERROR" | "SERVICE_UNAVAILABLE";
        ValidationIssue: {
            /** @description JSON path of the offending value, e.g. `/body/participants/3/display_name` or `/query/limit`. */
            path: string;
            message: string;
        };
        LimitExceededDetails: {
            /**
             * @description The limit that was reached.
             * @enum {string}
             */
            limit: "max_concurrent_rooms" | "max_participants_per_room" | "max_participants" | "max_recording_duration_minutes";
            /** @description The value of that limit. */
            max?: number;
        };
        /**
         * @description The one error envelope. Named `ErrorResponse`, not `Error`: generators turn a schema named `Error` into
         *     `ModelError` or collide with the language's own type (docs/decisions.md §12).
         */
        ErrorResponse: {
            error: {
                code: components["schemas"]["ErrorCode"];
                /** @description Human-readable; do not parse. */
                message: string;
                /** @description `VALIDATION_ERROR`: one entry per violation, at most 20 (the 20th says when more were cut). `LIMIT_EXCEEDED`: which limit. */
                details?: components["schemas"]["ValidationIssue"][] | components["schemas"]["LimitExceededDetails"];
                /** @description Same value as the `X-Request-Id` response header. */
                request_id: string;
            };
        };
        Health: {
            /** @constant */
            status: "ok";
        };
        /** @enum {string} */
        CheckStatus: "ok" | "error";
        Readiness: {
            /** @description `ok` when every check is `ok`. */
            status: components["schemas"]["CheckStatus"];
            checks: {
                database: components["schemas"]["CheckStatus"];
                temporal: components["schemas"]["CheckStatus"];
                storage: components["schemas"]["CheckStatus"];
            };
        };
        Jwk: {
            /** @constant */
            kty: "OKP";
            /** @constant */
            crv: "Ed25519";
            /** @description The public key, base64url. */
            x: string;
            kid: string;
            /** @constant */
            alg: "EdDSA";
            /** @constant */
            use: "sig";
        };
        Jwks: {
            keys: components["schemas"]["Jwk"][];
        };
        IssueTokenRequest: {
            /** @description The tenant's API key. A wrong key is `401 UNAUTHORIZED`, not a validation error. */
            api_key: string;
        };
        RefreshTokenRequest: {
            /** @description A refresh token from `/auth/token`, `/auth/refresh` or a participant token response. */
            refresh_token: components["schemas"]["Jwt"];
        };
        TokenSet: {
            access_token: components["schemas"]["Jwt"];
            refresh_token: components["schemas"]["Jwt"];
            token_type: components["schemas"]["TokenType"];
            /** @description Access token lifetime in seconds (900 for tenant tokens by default). */
            expires_in: number;
        };
        TokenSetResponse: {
            data: components["schemas"]["TokenSet"];
        };
        RefreshedTokenSet: {
            access_token: components["schemas"]["Jwt"];
            refresh_token: components["schemas"]["Jwt"];
            token_type: components["schemas"]["TokenType"];
            /** @description Access token lifetime in seconds. */
            expires_in: number;
            /** @description Present only when the refresh token belongs to a participant. */
            auth_token?: components["schemas"]["Jwt"];
        };
        RefreshedTokenSetResponse: {
            data: components["schemas"]["RefreshedTokenSet"];
        };
        TenantName: string;
        /** @description Active rooms the tenant may have at once. */
        MaxConcurrentRooms: number;
        /** @description Participants per room (rooms may set a lower `max_participants`). */
        MaxParticipantsPerRoom: number;
        /** @description A recording is stopped automatically after this many minutes. */
        MaxRecordingDurationMinutes: number;
        CreateTenantRequest: {
            name: components["schemas"]["TenantName"];
            /** @default 100 */
            max_concurrent_rooms: components["schemas"]["MaxConcurrentRooms"];
            /** @default 10 */
            max_participants_per_room: components["schemas"]["MaxParticipantsPerRoom"];
            /** @default 120 */
            max_recording_duration_minutes: components["schemas"]["MaxRecordingDurationMinutes"];
        };
        /** @description Only provided fields change. Limits need the admin key. */
        UpdateTenantRequest: {
            name?: components["schemas"]["TenantName"];
            max_concurrent_rooms?: components["schemas"]["MaxConcurrentRooms"];
            max_participants_per_room?: components["schemas"]["MaxParticipantsPerRoom"];
            max_recording_duration_minutes?: components["schemas"]["MaxRecordingDurationMinutes"];
        };
        TenantCreated: {
            id: components["schemas"]["Uuid"];
            name: components["schemas"]["TenantName"];
            /** @description Shown only here and on rotation. */
            api_key: components["schemas"]["ApiKey"];
            max_concurrent_rooms: components["schemas"]["MaxConcurrentRooms"];
            max_participants_per_room: components["schemas"]["MaxParticipantsPerRoom"];
            max_recording_duration_minutes: components["schemas"]["MaxRecordingDurationMinutes"];
            created_at: components["schemas"]["Timestamp"];
        };
        TenantCreatedResponse: {
            data: components["schemas"]["TenantCreated"];
        };
        Tenant: {
            id: components["schemas"]["Uuid"];
            name: components["schemas"]["TenantName"];
            max_concurrent_rooms: components["schemas"]["MaxConcurrentRooms"];
            max_participants_per_room: components["schemas"]["MaxParticipantsPerRoom"];
            max_recording_duration_minutes: components["schemas"]["MaxRecordingDurationMinutes"];
            config: components["schemas"]["TenantConfig"];
            created_at: components["schemas"]["Timestamp"];
        };
        TenantResponse: {
            data: components["schemas"]["Tenant"];
        };
        TenantUpdated: {
            id: components["schemas"]["Uuid"];
            name: components["schemas"]["TenantName"];
            max_concurrent_rooms: components["schemas"]["MaxConcurrentRooms"];
            max_participants_per_room: components["schemas"]["MaxParticipantsPerRoom"];
            max_recording_duration_minutes: components["schemas"]["MaxRecordingDurationMinutes"];
            updated_at: components["schemas"]["Timestamp"];
        };
        TenantUpdatedResponse: {
            data: components["schemas"]["TenantUpdated"];
        };
        TenantDeletedResponse: {
            data: {
                id: components["schemas"]["Uuid"];
                /** @description Always `true`. */
                deleted: boolean;
            };
        };
        ApiKeyRotatedResponse: {
            data: {
                /** @description The new key, shown only here. The previous key no longer works. */
                api_key: components["schemas"]["ApiKey"];
            };
        };
        TenantConfigUpdatedResponse: {
            data: {
                id: components["schemas"]["Uuid"];
                config: components["schemas"]["TenantConfig"];
                updated_at: components["schemas"]["Timestamp"];
            };
        };
        /**
         * @description What happens when a participant is added with an `external_user_id` already present in the room: `reject`
         *     (409 `DUPLICATE_PARTICIPANT`), `disconnect_existing` (the earlier participant is removed, its socket closed
         *     with 4002), `allow` (both stay).
         * @enum {string}
         */
        DuplicateParticipantPolicy: "reject" | "disconnect_existing" | "allow";
        /** @description Minutes a room may stay empty (nobody connected) before it ends. */
        EmptyRoomTimeoutMinutes: number;
        /** @description Days a deleted recording's data is kept before it is purged. */
        RecordingRetentionDays: number;
        /** @description A BCP 47 language tag supported by at least one configured transcription provider. */
        TranscriptionLanguage: string;
        /** @description Words to boost in transcription. */
        TranscriptionKeywords: string[];
        /**
         * @description Origins allowed for CORS and for the WebSocket `Origin` check. At most 20 entries, each an origin starting
         *     with `http://` or `https://` (scheme, host, optional port). Wildcards are refused except the localhost forms
         *     `http://localhost:*` and `http://127.0.0.1:*`. When empty, WebSocket origins are checked against the operator's
         *     patterns instead.
         */
        AllowedOrigins: string[];
        /** @description A transcription provider id as listed by `GET /api/v1/transcription/providers` (e.g. `openai`, `deepgram`). */
        ProviderId: string;
        /**
         * @description `builtin` (extractive summary and action items, no network; the default) or `openai-compatible` (chat completions).
         * @enum {string}
         */
        AiProvider: "builtin" | "openai-compatible";
        /** @description A model identifier `<vendor>/<model>`, for `openai-compatible`. */
        AiModel: string;
        /** @description The tenant's configuration with every field resolved (defaults filled in, secrets masked). */
        TenantConfig: {
            /**
             * @description Record every room (forces `recording_enabled` on).
             * @default false
             */
            force_recording: boolean;
            /**
             * @description Clients should start recording when the room begins (see `should_start_recording`).
             * @default false
             */
            auto_start_recording: boolean;
            /**
             * @description Adding a participant to a room name that does not exist creates the room.
             * @default true
             */
            allow_early_join: boolean;
            /** @default 30 */
            empty_room_timeout_minutes: components["schemas"]["EmptyRoomTimeoutMinutes"];
            /** @default 30 */
            recording_retention_days: components["schemas"]["RecordingRetentionDays"];
            /** @default reject */
            duplicate_participant_policy: components["schemas"]["DuplicateParticipantPolicy"];
            /** @default true */
            transcription_enabled: boolean;
            /** @default en-US */
            transcription_language: components["schemas"]["TranscriptionLanguage"];
            /** @default false */
            transcription_profanity_filter: boolean;
            /** @default [] */
            transcription_keywords: components["schemas"]["TranscriptionKeywords"];
            /** @default [] */
            allowed_origins: components["schemas"]["AllowedOrigins"];
            /**
             * @description The post-meeting webhook, or null when none is configured.
             * @default null
             */
            post_meeting_webhook: components["schemas"]["PostMeetingWebhook"] | null;
        };
        /** @description The tenant configuration as a participant's client sees it (no `post_meeting_webhook`). */
        ParticipantTenantConfig: {
            force_recording: boolean;
            auto_start_recording: boolean;
            allow_early_join: boolean;
            empty_room_timeout_minutes: components["schemas"]["EmptyRoomTimeoutMinutes"];
            recording_retention_days: components["schemas"]["RecordingRetentionDays"];
            duplicate_participant_policy: components["schemas"]["DuplicateParticipantPolicy"];
            transcription_enabled: boolean;
            transcription_language: components["schemas"]["TranscriptionLanguage"];
            transcription_profanity_filter: boolean;
            transcription_keywords: components["schemas"]["TranscriptionKeywords"];
            allowed_origins: components["schemas"]["AllowedOrigins"];
        };
        /** @description The post-meeting webhook as stored, secrets masked. */
        PostMeetingWebhook: {
            enabled: boolean;
            /** Format: uri */
            url: string;
            secret: components["schemas"]["MaskedSecret"];
            /** @default false */
            include_recording: boolean;
            /** @default false */
            include_transcript: boolean;
            /** @default false */
            include_summary: boolean;
            /** @default false */
            include_action_items: boolean;
            /** @description Omitted when not set. */
            transcription?: {
                provider?: components["schemas"]["ProviderId"];
                api_key?: components["schemas"]["MaskedSecret"];
            };
            /** @description Omitted when not set. */
            ai?: {
                provider?: components["schemas"]["AiProvider"];
                api_key?: components["schemas"]["MaskedSecret"];
                model?: components["schemas"]["AiModel"];
            };
        };
        /**
         * @description Any subset of the tenant configuration (merge patch). No field has a default here: an omitted field keeps its
         *     current value (see `TenantConfig` for the initial values).
         */
        TenantConfigPatch: {
            force_recording?: boolean;
            auto_start_recording?: boolean;
            allow_early_join?: boolean;
            empty_room_timeout_minutes?: components["schemas"]["EmptyRoomTimeoutMinutes"];
            recording_retention_days?: components["schemas"]["RecordingRetentionDays"];
            duplicate_participant_policy?: components["schemas"]["DuplicateParticipantPolicy"];
            transcription_enabled?: boolean;
            transcription_language?: components["schemas"]["TranscriptionLanguage"];
            transcription_profanity_filter?: boolean;
            transcription_keywords?: components["schemas"]["TranscriptionKeywords"];
            allowed_origins?: components["schemas"]["AllowedOrigins"];
            /** @description Merged into the current webhook config; `null` removes the webhook. */
            post_meeting_webhook?: components["schemas"]["PostMeetingWebhookPatch"] | null;
        };
        /**
         * @description Merged into the current webhook config. When no webhook is configured yet, `enabled`, `url` and `secret` are
         *     required (`400 VALIDATION_ERROR` otherwise). Omitted `include_*` flags default to false.
         */
        PostMeetingWebhookPatch: {
            enabled?: boolean;
            /**
             * Format: uri
             * @description The tenant's endpoint. Must be `https` with a public address in production.
             */
            url?: string;
            /**
             * @description Signing secret, at least 16 characters (recommended prefix `whsec_`). Stored encrypted, shown masked
             *     (`****` + its last 4 characters). Sending back exactly the mask Get Tenant shows keeps the stored secret,
             *     so a config read and sent back whole changes nothing; any other value starting with `****` is
             *     `400 VALIDATION_ERROR` naming this field (a mask is never stored as a secret).
             */
            secret?: string;
            include_recording?: boolean;
            include_transcript?: boolean;
            include_summary?: boolean;
            include_action_items?: boolean;
            /** @description Transcription for this webhook's processing; `null` removes it (deployment default is used). */
            transcription?: {
                provider?: components["schemas"]["ProviderId"];
                /**
                 * @description The tenant's own key for that provider. Stored encrypted, shown masked. Sending back exactly the mask
                 *     Get Tenant shows keeps the stored key; any other value starting with `****` is
                 *     `400 VALIDATION_ERROR` naming this field (a mask is never stored as a key).
                 */
                api_key?: string;
            } | null;
            /** @description AI summary and action items; `null` removes it (`builtin` is used). */
            ai?: {
                provider?: components["schemas"]["AiProvider"];
                /**
                 * @description The tenant's own key for the AI provider. Stored encrypted, shown masked. Sending back exactly the mask
                 *     Get Tenant shows keeps the stored key; any other value starting with `****` is
                 *     `400 VALIDATION_ERROR` naming this field (a mask is never stored as a key).
                 */
                api_key?: string;
                model?: components["schemas"]["AiModel"];
            } | null;
        };
        /** @description At most the tenant's `max_participants_per_room` (`409 LIMIT_EXCEEDED` otherwise). */
        MaxParticipants: number;
        RoomConfig: {
            max_participants: components["schemas"]["MaxParticipants"];
            recording_enabled: boolean;
            chat_enabled: boolean;
        };
        /**
         * @description On create, omitted fields take their defaults: `max_participants` = the tenant's `max_participants_per_room`,
         *     `recording_enabled` false (true when the tenant forces recording), `chat_enabled` true. On update, omitted
         *     fields keep their values.
         */
        RoomConfigInput: {
            max_participants?: components["schemas"]["MaxParticipants"];
            recording_enabled?: boolean;
            chat_enabled?: boolean;
        };
        CreateRoomRequest: {
            name: components["schemas"]["RoomName"];
            config?: components["schemas"]["RoomConfigInput"];
        };
        UpdateRoomRequest: {
            name?: components["schemas"]["RoomName"];
            config?: components["schemas"]["RoomConfigInput"];
        };
        Room: {
            id: components["schemas"]["Uuid"];
            name: components["schemas"]["RoomName"];
            status: components["schemas"]["RoomStatus"];
            config: components["schemas"]["RoomConfig"];
            created_at: components["schemas"]["Timestamp"];
            /** @description Present once the room has ended. */
            ended_at?: components["schemas"]["Timestamp"];
        };
        RoomWithParticipantCount: {
            id: components["schemas"]["Uuid"];
            name: components["schemas"]["RoomName"];
            status: components["schemas"]["RoomStatus"];
            config: components["schemas"]["RoomConfig"];
            /** @description Participants added to the room and not removed (present or not). */
            participant_count: number;
            created_at: components["schemas"]["Timestamp"];
            /** @description Present once the room has ended. */
            ended_at?: components["schemas"]["Timestamp"];
        };
        RoomList: {
            rooms: components["schemas"]["RoomWithParticipantCount"][];
            total: number;
            limit: number;
            offset: number;
        };
        AddParticipantRequest: {
            display_name: components["schemas"]["DisplayName"];
            external_user_id?: components["schemas"]["ExternalUserId"];
            /** @default participant */
            role: components["schemas"]["Role"];
        };
        Participant: {
            id: components["schemas"]["Uuid"];
            room_id: components["schemas"]["Uuid"];
            display_name: components["schemas"]["DisplayName"];
            /** @description Omitted when the participant has none. */
            external_user_id?: components["schemas"]["ExternalUserId"];
            role: components["schemas"]["Role"];
        };
        RoomRef: {
            id: components["schemas"]["Uuid"];
            name: components["schemas"]["RoomName"];
            status: components["schemas"]["RoomStatus"];
        };
        AddParticipantResponse: {
            participant: components["schemas"]["Participant"];
            room: components["schemas"]["RoomRef"];
            /** @description True when this call created the room (early join). */
            room_created: boolean;
            tenant_config: components["schemas"]["ParticipantTenantConfig"];
            /** @description For the SDK; authenticates the WebSocket. */
            access_token: components["schemas"]["Jwt"];
            refresh_token: components["schemas"]["Jwt"];
            token_type: components["schemas"]["TokenType"];
            /** @description Lifetime of `access_token` and `auth_token` in seconds (3600 by default). */
            expires_in: number;
            /** @description For API calls as this participant (`Authorization: Bearer`). */
            auth_token: components["schemas"]["Jwt"];
            /** @description Whether the client should start recording now. */
            should_start_recording: boolean;
        };
        ParticipantTokenSet: {
            access_token: components["schemas"]["Jwt"];
            refresh_token: components["schemas"]["Jwt"];
            token_type: components["schemas"]["TokenType"];
            expires_in: number;
            auth_token: components["schemas"]["Jwt"];
        };
        ParticipantListEntry: {
            id: components["schemas"]["Uuid"];
            display_name: components["schemas"]["DisplayName"];
            /** @description Omitted when the participant has none. */
            external_user_id?: components["schemas"]["ExternalUserId"];
            role: components["schemas"]["Role"];
            joined_at: components["schemas"]["Timestamp"];
        };
        ParticipantList: {
            participants: components["schemas"]["ParticipantListEntry"][];
        };
        /**
         * @description Same fields as Add Participant. `display_name` is not enforced by the schema here so that an entry without it
         *     fails alone (`success: false`) instead of failing the whole request.
         */
        BulkParticipantInput: {
            display_name?: components["schemas"]["DisplayName"];
            external_user_id?: components["schemas"]["ExternalUserId"];
            /** @default participant */
            role: components["schemas"]["Role"];
        };
        BulkAddParticipantsRequest: {
            participants: components["schemas"]["BulkParticipantInput"][];
        };
        BulkAddSuccess: {
            participant_id: components["schemas"]["Uuid"];
            /** @description `true`: the participant was added. */
            success: boolean;
            access_token: components["schemas"]["Jwt"];
            auth_token: components["schemas"]["Jwt"];
        };
        BulkAddFailure: {
            /** @description `false`: this entry was not added. */
            success: boolean;
            /** @description Why this entry was not added. */
            error: string;
            /** @description The error code the same failure would have on Add Participant. */
            code?: components["schemas"]["ErrorCode"];
        };
        BulkAddParticipantsResponse: {
            /** @description One entry per input entry, in input order. */
            results: (components["schemas"]["BulkAddSuccess"] | components["schemas"]["BulkAddFailure"])[];
        };
        /** @description Null until known. */
        DurationSeconds: number | null;
        /** @description Null until known. */
        SizeBytes: number | null;
        RecordingStarted: {
            id: components["schemas"]["Uuid"];
            room_id: components["schemas"]["Uuid"];
            /** @constant */
            status: "recording";
            started_at: components["schemas"]["Timestamp"];
        };
        RecordingStartedResponse: {
            data: components["schemas"]["RecordingStarted"];
        };
        RecordingStopped: {
            id: components["schemas"]["Uuid"];
            room_id: components["schemas"]["Uuid"];
            /** @constant */
            status: "processing";
            stopped_at: components["schemas"]["Timestamp"];
        };
        RecordingStoppedResponse: {
            data: components["schemas"]["RecordingStopped"];
        };
        RecordingSyncResponse: {
            data: {
                /** @description Number of recordings imported by this call. */
                synced_count: number;
                recordings: {
                    id: components["schemas"]["Uuid"];
                    status: components["schemas"]["RecordingStatus"];
                }[];
            };
        };
        RecordingListItem: {
            id: components["schemas"]["Uuid"];
            room_id: components["schemas"]["Uuid"];
            status: components["schemas"]["RecordingStatus"];
            duration_seconds: components["schemas"]["DurationSeconds"];
            size_bytes: components["schemas"]["SizeBytes"];
            created_at: components["schemas"]["Timestamp"];
        };
        PageMeta: {
            total: number;
            limit: number;
            offset: number;
        };
        RecordingListResponse: {
            data: components["schemas"]["RecordingListItem"][];
            meta: components["schemas"]["PageMeta"];
        };
        Recording: {
            id: components["schemas"]["Uuid"];
            room_id: components["schemas"]["Uuid"];
            room: {
                id: components["schemas"]["Uuid"];
                name: components["schemas"]["RoomName"];
            };
            status: components["schemas"]["RecordingStatus"];
            duration_seconds: components["schemas"]["DurationSeconds"];
            size_bytes: components["schemas"]["SizeBytes"];
            /** @description Null when unknown (a recording imported from the media provider). */
            started_at: components["schemas"]["Timestamp"] | null;
            /** @description Null while recording. */
            stopped_at: components["schemas"]["Timestamp"] | null;
        };
        RecordingResponse: {
            data: components["schemas"]["Recording"];
        };
        /**
         * @description `ready` / `archived` (200): `download_url`, `duration`, `file_size` and `provider` are present.
         *     `recording` / `processing` (202): `message` is present; retry after `Retry-After` seconds.
         */
        RecordingDownload: {
            recording_id: components["schemas"]["Uuid"];
            /** @enum {string} */
            status: "recording" | "processing" | "ready" | "archived";
            /**
             * Format: uri
             * @description Presigned URL, valid for one hour (200 only).
             */
            download_url?: string;
            /** @description Duration in seconds (200 only). */
            duration?: components["schemas"]["DurationSeconds"];
            /** @description Size in bytes (200 only). */
            file_size?: components["schemas"]["SizeBytes"];
            /** @description The storage provider holding the file (`s3`) (200 only). */
            provider?: string;
            /** @description Why there is nothing to download yet (202 only). */
            message?: string;
        };
        RecordingArchivedResponse: {
            data: {
                id: components["schemas"]["Uuid"];
                /** @constant */
                status: "archived";
                archived_at: components["schemas"]["Timestamp"];
            };
        };
        RecordingRecoveredResponse: {
            data: {
                id: components["schemas"]["Uuid"];
                /** @constant */
                status: "processing";
                message: string;
            };
        };
        RecordingDeletedResponse: {
            data: {
                id: components["schemas"]["Uuid"];
                /** @description Always `true`. */
                deleted: boolean;
                deleted_at: components["schemas"]["Timestamp"];
            };
        };
        QueueTranscriptionRequest: {
            /** @description The recording's room (optional; when sent, it must match). */
            room_id?: components["schemas"]["Uuid"];
            /** @description A configured provider id; the default provider when omitted. */
            provider?: components["schemas"]["ProviderId"];
        };
        RerunPostMeetingRequest: {
            /** @description Transcribe again even when a completed transcript of the recording exists (default false). */
            retranscribe?: boolean;
        };
        PostMeetingRerunStarted: {
            recording_id: components["schemas"]["Uuid"];
            /** @description The run's number (the run started when the recording became ready is 1). */
            run: number;
            /** @description The Temporal workflow id of the run, `post-meeting-<recording id>-<run>` (docs/operations.md). */
            workflow_id: string;
            /** @constant */
            status: "started";
        };
        TranscriptionQueued: {
            transcript_id: components["schemas"]["Uuid"];
            /** @constant */
            status: "pending";
        };
        TranscriptSegment: {
            /** @description Seconds from the start of the recording. */
            start: number;
            /** @description Seconds from the start of the recording. */
            end: number;
            text: string;
            /**
             * @description The provider's speaker label (OpenAI's `diarized_json` gives `A`, `B`, …; Deepgram's speaker numbers become
             *     `speaker_0`, `speaker_1`, …). When the provider gives no label, a 16-bit PCM WAV recording's segments are
             *     labelled by voice, `speaker_0` for the first voice heard, `speaker_1` for the next (two voices of one pitch
             *     range share a label); a provider's segment that runs two voices together is then split where the voice
             *     changes at a pause, so such a transcript may hold more segments than the provider returned (the words are
             *     the provider's, in its order). Any other recording, or a single voice, gives `speaker_0` for every segment
             *     (docs/decisions.md §9, "Speakers told apart by voice"). Never null.
             */
            speaker: string;
        };
        Transcript: {
            id: components["schemas"]["Uuid"];
            recording_id: components["schemas"]["Uuid"];
            room_id: components["schemas"]["Uuid"];
            status: components["schemas"]["TranscriptStatus"];
            provider: components["schemas"]["ProviderId"];
            failure_reason: components["schemas"]["TranscriptFailureReason"];
            /** @description The transcript; null until `completed`. */
            content: {
                segments: components["schemas"]["TranscriptSegment"][];
            } | null;
            created_at: components["schemas"]["Timestamp"];
            /** @description Null until `completed` or `failed`. */
            completed_at: components["schemas"]["Timestamp"] | null;
        };
        /**
         * @description Why the transcript failed (the provider's status and message, or the end of the retry window), null unless
         *     `failed` (docs/decisions.md §9). Never carries a credential: URLs are shown without their query.
         */
        TranscriptFailureReason: string | null;
        TranscriptResponse: {
            data: components["schemas"]["Transcript"];
        };
        TranscriptionProvider: {
            id: components["schemas"]["ProviderId"];
            name: string;
            supported_languages: components["schemas"]["TranscriptionLanguage"][];
        };
        TranscriptionProviderList: {
            providers: components["schemas"]["TranscriptionProvider"][];
            default_provider: components["schemas"]["ProviderId"];
        };
        PostMeetingTranscriptSummary: {
            id: components["schemas"]["Uuid"];
            recording_id: components["schemas"]["Uuid"];
            status: components["schemas"]["TranscriptStatus"];
            provider: components["schemas"]["ProviderId"];
            failure_reason: components["schemas"]["TranscriptFailureReason"];
            created_at: components["schemas"]["Timestamp"];
        };
        PostMeetingTranscriptListResponse: {
            data: components["schemas"]["PostMeetingTranscriptSummary"][];
        };
        UpstreamRecordingReady: {
            /** @constant */
            type: "recording.ready";
            /** @description The media provider's recording identifier (stored as `upstream_recording_id`). */
            recording_id: string;
            /** @description The Convene room id. */
            meeting_id: components["schemas"]["Uuid"];
            /**
             * Format: uri
             * @description Temporary URL to download the recording from.
             */
            url: string;
            duration_seconds: number;
            size_bytes: number;
            /** @description MIME type of the file, e.g. `audio/webm`. */
            content_type: string;
        };
        WebhookReceived: {
            /** @description Always `true`. */
            received: boolean;
        };
        /**
         * @description `pending` (first attempt not made yet), `retrying` (an attempt failed, another is scheduled), `succeeded`
         *     (a 2xx was received), `failed` (a permanent failure, or the last scheduled attempt failed).
         * @enum {string}
         */
        WebhookDeliveryStatus: "pending" | "retrying" | "succeeded" | "failed";
        WebhookDeliverySummary: {
            /** @description Also sent to the receiver as `X-Convene-Delivery`. */
            id: components["schemas"]["Uuid"];
            /**
             * @description `webhook.test` for a test event (Send Test Webhook).
             * @enum {string}
             */
            event: "meeting.recording_ready" | "webhook.test";
            status: components["schemas"]["WebhookDeliveryStatus"];
            /**
             * Format: uri
             * @description The endpoint this delivery is sent to.
             */
            url: string;
            /** @description The meeting (room) the event is about; null for a test event. */
            room_id: components["schemas"]["Uuid"] | null;
            /** @description The recording the event is about. */
            recording_id: components["schemas"]["Uuid"] | null;
            attempt_count: number;
            /** @description HTTP status of the latest attempt; null before any response (or on timeout / network error). */
            last_response_status_code: number | null;
            /** @description When the next attempt is scheduled; null when none is. */
            next_attempt_at: components["schemas"]["Timestamp"] | null;
            /** @description The delivery this one re-sends, if it is a re-send. */
            resent_from: components["schemas"]["Uuid"] | null;
            created_at: components["schemas"]["Timestamp"];
            /** @description When the delivery reached `succeeded` or `failed`. */
            completed_at: components["schemas"]["Timestamp"] | null;
        };
        WebhookDeliveryAttempt: {
            /** @description 1 for the first attempt. */
            attempt: number;
            /** @enum {string} */
            status: "succeeded" | "failed";
            /** @description Null on timeout or network error. */
            response_status_code: number | null;
            duration_ms: number;
            /** @description Why the attempt failed; null when it succeeded. */
            error: string | null;
            attempted_at: components["schemas"]["Timestamp"];
            /** @description When the retry following this failed attempt is scheduled; null when there is none. */
            next_attempt_at: components["schemas"]["Timestamp"] | null;
        };
        WebhookDelivery: {
            id: components["schemas"]["Uuid"];
            /** @enum {string} */
            event: "meeting.recording_ready" | "webhook.test";
            status: components["schemas"]["WebhookDeliveryStatus"];
            /** Format: uri */
            url: string;
            room_id: components["schemas"]["Uuid"] | null;
            recording_id: components["schemas"]["Uuid"] | null;
            attempt_count: number;
            last_response_status_code: number | null;
            next_attempt_at: components["schemas"]["Timestamp"] | null;
            resent_from: components["schemas"]["Uuid"] | null;
            created_at: components["schemas"]["Timestamp"];
            completed_at: components["schemas"]["Timestamp"] | null;
            /** @description Every attempt so far, oldest first. */
            attempts: components["schemas"]["WebhookDeliveryAttempt"][];
        };
        WebhookDeliveryListResponse: {
            data: components["schemas"]["WebhookDeliverySummary"][];
            meta: components["schemas"]["PageMeta"];
        };
        WebhookDeliveryResponse: {
            data: components["schemas"]["WebhookDelivery"];
        };
        WebhookDeliverySummaryResponse: {
            data: components["schemas"]["WebhookDeliverySummary"];
        };
    };
    responses: {
        /** @description `VALIDATION_ERROR`: the body, query, path or a header fails this document or a documented rule. */
        BadRequest: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "VALIDATION_ERROR",
                 *         "message": "Request does not match the API schema",
                 *         "details": [
                 *           {
                 *             "path": "/query/limit",
                 *             "message": "must be >= 1"
                 *           }
                 *         ],
                 *         "request_id": "01931c80-4d3c-7b2a-9f18-e7d6c5b4a392"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /**
         * @description `VALIDATION_ERROR` (the request fails this document or a documented rule) or `INVALID_STATE` (the resource is
         *     not in a state that allows the operation; the operation's description says which).
         */
        BadRequestOrInvalidState: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description `UNAUTHORIZED` (missing or invalid API key, token or admin key) or `TOKEN_EXPIRED`. */
        Unauthorized: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description `INVALID_REFRESH_TOKEN`: the refresh token is malformed, expired, already used, or revoked. */
        InvalidRefreshToken: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "INVALID_REFRESH_TOKEN",
                 *         "message": "Refresh token is invalid or expired",
                 *         "request_id": "01931c80-4d3c-7b2a-9f18-e7d6c5b4a392"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description `INVALID_SIGNATURE`: `X-Upstream-Signature` is missing or does not match the body. */
        InvalidSignature: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "INVALID_SIGNATURE",
                 *         "message": "Signature is missing or invalid",
                 *         "request_id": "01931c80-4d3c-7b2a-9f18-e7d6c5b4a392"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /**
         * @description `FORBIDDEN`: authenticated but not allowed (another tenant's `/tenants/{id}`, a participant acting outside its
         *     room or role, a tenant changing its own limits, admin operations when no admin key is configured).
         */
        Forbidden: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "FORBIDDEN",
                 *         "message": "Only a host of this room may do this",
                 *         "request_id": "01931c80-4d3c-7b2a-9f18-e7d6c5b4a392"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description `NOT_FOUND` (absent, or another tenant's) or, for Stop Recording, `NO_ACTIVE_RECORDING`. */
        NotFound: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /**
         * @description `RECORDING_IN_PROGRESS`, `ROOM_ENDED`, `ROOM_NAME_TAKEN`, `DUPLICATE_PARTICIPANT` or `LIMIT_EXCEEDED`
         *     (`details.limit` names the limit).
         */
        Conflict: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description `PAYLOAD_TOO_LARGE`: the body exceeds 1 MiB. */
        PayloadTooLarge: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "PAYLOAD_TOO_LARGE",
                 *         "message": "Request body exceeds 1 MiB",
                 *         "request_id": "01931c80-4d3c-7b2a-9f18-e7d6c5b4a392"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description `UNSUPPORTED_MEDIA_TYPE`: the body is not `application/json`. */
        UnsupportedMediaType: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "UNSUPPORTED_MEDIA_TYPE",
                 *         "message": "Content-Type must be application/json",
                 *         "request_id": "01931c80-4d3c-7b2a-9f18-e7d6c5b4a392"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description `RATE_LIMITED`: too many requests for this tenant, or too many failed credentials from this client address; wait `Retry-After` seconds. */
        RateLimited: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "RATE_LIMITED",
                 *         "message": "Too many requests",
                 *         "request_id": "01931c80-4d3c-7b2a-9f18-e7d6c5b4a392"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description `INTERNAL_ERROR`: an unexpected failure. The body never reveals internals; quote `request_id`. */
        InternalError: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "INTERNAL_ERROR",
                 *         "message": "Internal error",
                 *         "request_id": "01931c80-4d3c-7b2a-9f18-e7d6c5b4a392"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /**
         * @description `SERVICE_UNAVAILABLE`: a dependency this call needs (the media provider, Temporal or the object store) is
         *     unreachable right now; nothing was changed. Retry after `Retry-After` seconds.
         */
        ServiceUnavailable: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "SERVICE_UNAVAILABLE",
                 *         "message": "The media provider failed: media provider unreachable",
                 *         "request_id": "01931c80-4d3c-7b2a-9f18-e7d6c5b4a392"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
    };
    parameters: {
        /** @description Tenant id. */
        TenantId: components["schemas"]["Uuid"];
        /**
         * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
         *     resolves to the tenant's active room of that name, else its most recently ended one.
         */
        RoomIdOrName: string;
        /** @description Participant id. */
        ParticipantId: components["schemas"]["Uuid"];
        /** @description Recording id. */
        RecordingId: components["schemas"]["Uuid"];
        /** @description Transcript id. */
        TranscriptId: components["schemas"]["Uuid"];
        /** @description Webhook delivery id. */
        DeliveryId: components["schemas"]["Uuid"];
        /** @description Page size. */
        Limit: number;
        /** @description Number of items to skip. */
        Offset: number;
    };
    requestBodies: never;
    headers: {
        /** @description A strong validator of the page's content; it changes when the page does. */
        DocsETag: string;
        /** @description `public, max-age=300`: caches may keep the page 5 minutes, then revalidate with the `ETag`. */
        DocsCacheControl: string;
        /**
         * @description Identifies the request in Convene's logs; equal to `error.request_id` in error bodies. A well-formed
         *     `X-Request-Id` sent by the client (1–128 of `A-Z a-z 0-9 . _ : -`) is echoed, otherwise Convene generates
         *     a UUID.
         */
        XRequestId: string;
        /** @description Seconds to wait before trying again. */
        RetryAfter: number;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The process is up. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok"
                     *     }
                     */
                    "application/json": components["schemas"]["Health"];
                };
            };
            400: components["responses"]["BadRequest"];
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every dependency is reachable. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok",
                     *       "checks": {
                     *         "database": "ok",
                     *         "temporal": "ok",
                     *         "storage": "ok"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description At least one dependency is unreachable. The body is the readiness report, not the error envelope. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "checks": {
                     *         "database": "ok",
                     *         "temporal": "error",
                     *         "storage": "ok"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Readiness"];
                };
            };
        };
    };
    getRoot: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Found; the documentation is at `/docs`. */
            302: {
                headers: {
                    /** @description Always `/docs`. */
                    Location?: "/docs";
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The current values of every metric of this process. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example # HELP convene_http_requests_total HTTP requests answered, by operation and status.
                     *     # TYPE convene_http_requests_total counter
                     *     convene_http_requests_total{operation="getHealth",method="GET",status="200"} 3
                     */
                    "text/plain": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
        };
    };
    getDocs: {
        parameters: {
            query?: never;
            header?: {
                /** @description The `ETag` of a copy the client holds. */
                "If-None-Match"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The documentation page. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    ETag: components["headers"]["DocsETag"];
                    "Cache-Control": components["headers"]["DocsCacheControl"];
                    /** @description Allows nothing but this service (and inline script and style, which the page is made of). */
                    "Content-Security-Policy"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Not modified; the client's copy (its `If-None-Match`) is current. */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    ETag: components["headers"]["DocsETag"];
                    "Cache-Control": components["headers"]["DocsCacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
        };
    };
    getAsyncApiDocs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The AsyncAPI documentation page. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
        };
    };
    getOpenApiSpec: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI 3.1 document, as YAML. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/yaml": Record<string, never>;
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
        };
    };
    getAsyncApiSpec: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The AsyncAPI document, as YAML. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/yaml": Record<string, never>;
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
        };
    };
    getJwks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key set. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "keys": [
                     *         {
                     *           "kty": "OKP",
                     *           "crv": "Ed25519",
                     *           "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
                     *           "kid": "01931c50-0000-7a1b-8c2d-3e4f5a6b7c8d",
                     *           "alg": "EdDSA",
                     *           "use": "sig"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Jwks"];
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
        };
    };
    issueToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "api_key": "cvn_Zk3q9XyT1bW8mN2vR7sL0pQ4uE6aH5jD3cF9gK1iO2w"
                 *     }
                 */
                "application/json": components["schemas"]["IssueTokenRequest"];
            };
        };
        responses: {
            /** @description A new tenant token set. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "access_token": "eyJhbGciOiJFZERTQSIsImtpZCI6IjAxOTMxYzUwIn0.eyJ0eXAiOiJhY2Nlc3MiLCJ0ZW5hbnRfaWQiOiIwMTkzMWM1ZSJ9.c2lnbmF0dXJl",
                     *         "refresh_token": "eyJhbGciOiJFZERTQSIsImtpZCI6IjAxOTMxYzUwIn0.eyJ0eXAiOiJyZWZyZXNoIiwidGVuYW50X2lkIjoiMDE5MzFjNWUifQ.c2lnbmF0dXJl",
                     *         "token_type": "Bearer",
                     *         "expires_in": 900
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["TokenSetResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    refreshToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "refresh_token": "eyJhbGciOiJFZERTQSIsImtpZCI6IjAxOTMxYzUwIn0.eyJ0eXAiOiJyZWZyZXNoIiwidGVuYW50X2lkIjoiMDE5MzFjNWUifQ.c2lnbmF0dXJl"
                 *     }
                 */
                "application/json": components["schemas"]["RefreshTokenRequest"];
            };
        };
        responses: {
            /** @description A new token set; the presented refresh token is retired. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "access_token": "eyJhbGciOiJFZERTQSIsImtpZCI6IjAxOTMxYzUwIn0.eyJ0eXAiOiJhY2Nlc3MiLCJ0ZW5hbnRfaWQiOiIwMTkzMWM1ZSJ9.bmV3c2ln",
                     *         "refresh_token": "eyJhbGciOiJFZERTQSIsImtpZCI6IjAxOTMxYzUwIn0.eyJ0eXAiOiJyZWZyZXNoIiwidGVuYW50X2lkIjoiMDE5MzFjNWUifQ.bmV3c2ln",
                     *         "token_type": "Bearer",
                     *         "expires_in": 900
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["RefreshedTokenSetResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["InvalidRefreshToken"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    createTenant: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Acme Learning",
                 *       "max_concurrent_rooms": 50,
                 *       "max_participants_per_room": 25
                 *     }
                 */
                "application/json": components["schemas"]["CreateTenantRequest"];
            };
        };
        responses: {
            /** @description The tenant was created. Store `api_key` now; it cannot be read again. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "01931c5e-2a4b-7c3d-8e9f-0a1b2c3d4e5f",
                     *         "name": "Acme Learning",
                     *         "api_key": "cvn_Zk3q9XyT1bW8mN2vR7sL0pQ4uE6aH5jD3cF9gK1iO2w",
                     *         "max_concurrent_rooms": 50,
                     *         "max_participants_per_room": 25,
                     *         "max_recording_duration_minutes": 120,
                     *         "created_at": "2024-11-14T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["TenantCreatedResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getTenant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Tenant id. */
                id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tenant. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "01931c5e-2a4b-7c3d-8e9f-0a1b2c3d4e5f",
                     *         "name": "Acme Learning",
                     *         "max_concurrent_rooms": 50,
                     *         "max_participants_per_room": 25,
                     *         "max_recording_duration_minutes": 120,
                     *         "config": {
                     *           "force_recording": false,
                     *           "auto_start_recording": true,
                     *           "allow_early_join": true,
                     *           "empty_room_timeout_minutes": 30,
                     *           "recording_retention_days": 90,
                     *           "duplicate_participant_policy": "reject",
                     *           "transcription_enabled": true,
                     *           "transcription_language": "en-US",
                     *           "transcription_profanity_filter": false,
                     *           "transcription_keywords": [
                     *             "Convene",
                     *             "syllabus"
                     *           ],
                     *           "allowed_origins": [
                     *             "https://app.acme-learning.example"
                     *           ],
                     *           "post_meeting_webhook": {
                     *             "enabled": true,
                     *             "url": "https://hooks.acme-learning.example/convene",
                     *             "secret": "****x7Qe",
                     *             "include_recording": true,
                     *             "include_transcript": true,
                     *             "include_summary": true,
                     *             "include_action_items": false,
                     *             "ai": {
                     *               "provider": "builtin"
                     *             }
                     *           }
                     *         },
                     *         "created_at": "2024-11-14T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["TenantResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    deleteTenant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Tenant id. */
                id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tenant is deleted. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "01931c5e-2a4b-7c3d-8e9f-0a1b2c3d4e5f",
                     *         "deleted": true
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["TenantDeletedResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    updateTenant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Tenant id. */
                id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Acme Learning Europe"
                 *     }
                 */
                "application/json": components["schemas"]["UpdateTenantRequest"];
            };
        };
        responses: {
            /** @description The updated tenant. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "01931c5e-2a4b-7c3d-8e9f-0a1b2c3d4e5f",
                     *         "name": "Acme Learning Europe",
                     *         "max_concurrent_rooms": 50,
                     *         "max_participants_per_room": 25,
                     *         "max_recording_duration_minutes": 120,
                     *         "updated_at": "2024-11-20T16:05:12.000Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["TenantUpdatedResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    rotateTenantKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Tenant id. */
                id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new API key. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "api_key": "cvn_Qm8rT2vX5yB1nK7pL4sD9fG3hJ6wE0aZ2cV8bN5mR1t"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ApiKeyRotatedResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    updateTenantConfig: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Tenant id. */
                id: components["parameters"]["TenantId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "auto_start_recording": true,
                 *       "recording_retention_days": 90,
                 *       "allowed_origins": [
                 *         "https://app.acme-learning.example"
                 *       ],
                 *       "post_meeting_webhook": {
                 *         "enabled": true,
                 *         "url": "https://hooks.acme-learning.example/convene",
                 *         "secret": "whsec_3b9f1c2e7a4d8b6f0e5c1a9d2f7b4e8c6x7Qe",
                 *         "include_recording": true,
                 *         "include_transcript": true,
                 *         "include_summary": true
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["TenantConfigPatch"];
            };
        };
        responses: {
            /** @description The full configuration after the patch. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "01931c5e-2a4b-7c3d-8e9f-0a1b2c3d4e5f",
                     *         "config": {
                     *           "force_recording": false,
                     *           "auto_start_recording": true,
                     *           "allow_early_join": true,
                     *           "empty_room_timeout_minutes": 30,
                     *           "recording_retention_days": 90,
                     *           "duplicate_participant_policy": "reject",
                     *           "transcription_enabled": true,
                     *           "transcription_language": "en-US",
                     *           "transcription_profanity_filter": false,
                     *           "transcription_keywords": [],
                     *           "allowed_origins": [
                     *             "https://app.acme-learning.example"
                     *           ],
                     *           "post_meeting_webhook": {
                     *             "enabled": true,
                     *             "url": "https://hooks.acme-learning.example/convene",
                     *             "secret": "****x7Qe",
                     *             "include_recording": true,
                     *             "include_transcript": true,
                     *             "include_summary": true,
                     *             "include_action_items": false
                     *           }
                     *         },
                     *         "updated_at": "2024-11-20T16:07:45.000Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["TenantConfigUpdatedResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    listRooms: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: components["parameters"]["Limit"];
                /** @description Number of items to skip. */
                offset?: components["parameters"]["Offset"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of rooms (bare, not wrapped in `data`). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "rooms": [
                     *         {
                     *           "id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                     *           "name": "biology-101-week-3",
                     *           "status": "active",
                     *           "config": {
                     *             "max_participants": 20,
                     *             "recording_enabled": true,
                     *             "chat_enabled": true
                     *           },
                     *           "participant_count": 2,
                     *           "created_at": "2024-11-20T14:00:00.000Z"
                     *         }
                     *       ],
                     *       "total": 1,
                     *       "limit": 20,
                     *       "offset": 0
                     *     }
                     */
                    "application/json": components["schemas"]["RoomList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    createRoom: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "biology-101-week-3",
                 *       "config": {
                 *         "max_participants": 20,
                 *         "recording_enabled": true
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["CreateRoomRequest"];
            };
        };
        responses: {
            /** @description The room was created (bare room). */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                     *       "name": "biology-101-week-3",
                     *       "status": "active",
                     *       "config": {
                     *         "max_participants": 20,
                     *         "recording_enabled": true,
                     *         "chat_enabled": true
                     *       },
                     *       "created_at": "2024-11-20T14:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Room"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getRoom: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The room (bare) with its participant count. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                     *       "name": "biology-101-week-3",
                     *       "status": "active",
                     *       "config": {
                     *         "max_participants": 20,
                     *         "recording_enabled": true,
                     *         "chat_enabled": true
                     *       },
                     *       "participant_count": 2,
                     *       "created_at": "2024-11-20T14:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["RoomWithParticipantCount"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    deleteRoom: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The room is deleted. */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    updateRoom: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "config": {
                 *         "chat_enabled": false
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["UpdateRoomRequest"];
            };
        };
        responses: {
            /** @description The updated room (bare). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                     *       "name": "biology-101-week-3",
                     *       "status": "active",
                     *       "config": {
                     *         "max_participants": 20,
                     *         "recording_enabled": true,
                     *         "chat_enabled": false
                     *       },
                     *       "participant_count": 2,
                     *       "created_at": "2024-11-20T14:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["RoomWithParticipantCount"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    endRoom: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The ended room (bare). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                     *       "name": "biology-101-week-3",
                     *       "status": "ended",
                     *       "config": {
                     *         "max_participants": 20,
                     *         "recording_enabled": true,
                     *         "chat_enabled": true
                     *       },
                     *       "participant_count": 2,
                     *       "created_at": "2024-11-20T14:00:00.000Z",
                     *       "ended_at": "2024-11-20T15:02:41.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["RoomWithParticipantCount"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    listParticipants: {
        parameters: {
            query?: {
                /** @description When true, list only participants with an open WebSocket connection. */
                active?: boolean;
            };
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The participants (bare). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "participants": [
                     *         {
                     *           "id": "01931c61-0f3a-7b4c-9d5e-6f708192a3b4",
                     *           "display_name": "Ada Lovelace",
                     *           "external_user_id": "user-4821",
                     *           "role": "host",
                     *           "joined_at": "2024-11-20T14:01:10.000Z"
                     *         },
                     *         {
                     *           "id": "01931c61-4b2d-7e5f-8a6b-7c8d9e0f1a2b",
                     *           "display_name": "Guest 7",
                     *           "role": "viewer",
                     *           "joined_at": "2024-11-20T14:03:52.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ParticipantList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    addParticipant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Ada Lovelace",
                 *       "external_user_id": "user-4821",
                 *       "role": "host"
                 *     }
                 */
                "application/json": components["schemas"]["AddParticipantRequest"];
            };
        };
        responses: {
            /** @description The participant was added (bare response). */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "participant": {
                     *         "id": "01931c61-0f3a-7b4c-9d5e-6f708192a3b4",
                     *         "room_id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                     *         "display_name": "Ada Lovelace",
                     *         "external_user_id": "user-4821",
                     *         "role": "host"
                     *       },
                     *       "room": {
                     *         "id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                     *         "name": "biology-101-week-3",
                     *         "status": "active"
                     *       },
                     *       "room_created": false,
                     *       "tenant_config": {
                     *         "force_recording": false,
                     *         "auto_start_recording": true,
                     *         "allow_early_join": true,
                     *         "empty_room_timeout_minutes": 30,
                     *         "recording_retention_days": 90,
                     *         "duplicate_participant_policy": "reject",
                     *         "transcription_enabled": true,
                     *         "transcription_language": "en-US",
                     *         "transcription_profanity_filter": false,
                     *         "transcription_keywords": [],
                     *         "allowed_origins": [
                     *           "https://app.acme-learning.example"
                     *         ]
                     *       },
                     *       "access_token": "eyJhbGciOiJFZERTQSIsImtpZCI6IjAxOTMxYzUwIn0.eyJ0eXAiOiJhY2Nlc3MiLCJyb29tX2lkIjoiMDE5MzFjNjAifQ.c2lnbmF0dXJl",
                     *       "refresh_token": "eyJhbGciOiJFZERTQSIsImtpZCI6IjAxOTMxYzUwIn0.eyJ0eXAiOiJyZWZyZXNoIiwicm9vbV9pZCI6IjAxOTMxYzYwIn0.c2lnbmF0dXJl",
                     *       "token_type": "Bearer",
                     *       "expires_in": 3600,
                     *       "auth_token": "eyJhbGciOiJFZERTQSIsImtpZCI6IjAxOTMxYzUwIn0.eyJ0eXAiOiJhdXRoIiwicm9vbV9pZCI6IjAxOTMxYzYwIn0.c2lnbmF0dXJl",
                     *       "should_start_recording": true
                     *     }
                     */
                    "application/json": components["schemas"]["AddParticipantResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    bulkAddParticipants: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "participants": [
                 *         {
                 *           "display_name": "Grace Hopper",
                 *           "external_user_id": "user-1906",
                 *           "role": "participant"
                 *         },
                 *         {
                 *           "external_user_id": "user-0000"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["BulkAddParticipantsRequest"];
            };
        };
        responses: {
            /** @description One result per input entry, in input order (bare). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "results": [
                     *         {
                     *           "participant_id": "01931c62-7a1b-7c2d-9e3f-4a5b6c7d8e9f",
                     *           "success": true,
                     *           "access_token": "eyJhbGciOiJFZERTQSIsImtpZCI6IjAxOTMxYzUwIn0.eyJ0eXAiOiJhY2Nlc3MifQ.c2lnbmF0dXJl",
                     *           "auth_token": "eyJhbGciOiJFZERTQSIsImtpZCI6IjAxOTMxYzUwIn0.eyJ0eXAiOiJhdXRoIn0.c2lnbmF0dXJl"
                     *         },
                     *         {
                     *           "success": false,
                     *           "error": "display_name is required",
                     *           "code": "VALIDATION_ERROR"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["BulkAddParticipantsResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    removeParticipant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
                /** @description Participant id. */
                pid: components["parameters"]["ParticipantId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The participant is removed. */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    issueParticipantToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
                /** @description Participant id. */
                pid: components["parameters"]["ParticipantId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The participant's new tokens (bare). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJFZERTQSIsImtpZCI6IjAxOTMxYzUwIn0.eyJ0eXAiOiJhY2Nlc3MifQ.bmV3c2ln",
                     *       "refresh_token": "eyJhbGciOiJFZERTQSIsImtpZCI6IjAxOTMxYzUwIn0.eyJ0eXAiOiJyZWZyZXNoIn0.bmV3c2ln",
                     *       "token_type": "Bearer",
                     *       "expires_in": 3600,
                     *       "auth_token": "eyJhbGciOiJFZERTQSIsImtpZCI6IjAxOTMxYzUwIn0.eyJ0eXAiOiJhdXRoIn0.bmV3c2ln"
                     *     }
                     */
                    "application/json": components["schemas"]["ParticipantTokenSet"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    startRecording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Recording has started. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "01931c63-5e6f-7a80-b912-3c4d5e6f7081",
                     *         "room_id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                     *         "status": "recording",
                     *         "started_at": "2024-11-20T14:05:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["RecordingStartedResponse"];
                };
            };
            400: components["responses"]["BadRequestOrInvalidState"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    stopRecording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Recording has stopped. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "01931c63-5e6f-7a80-b912-3c4d5e6f7081",
                     *         "room_id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                     *         "status": "processing",
                     *         "stopped_at": "2024-11-20T15:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["RecordingStoppedResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    syncRecordings: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The imported recordings. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "synced_count": 1,
                     *         "recordings": [
                     *           {
                     *             "id": "01931c66-2b3c-7d4e-8f50-61728394a5b6",
                     *             "status": "processing"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["RecordingSyncResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listRecordings: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: components["parameters"]["Limit"];
                /** @description Number of items to skip. */
                offset?: components["parameters"]["Offset"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of recordings. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "01931c63-5e6f-7a80-b912-3c4d5e6f7081",
                     *           "room_id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                     *           "status": "ready",
                     *           "duration_seconds": 3300,
                     *           "size_bytes": 52428800,
                     *           "created_at": "2024-11-20T14:05:00.000Z"
                     *         }
                     *       ],
                     *       "meta": {
                     *         "total": 1,
                     *         "limit": 20,
                     *         "offset": 0
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["RecordingListResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getRecording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Recording id. */
                id: components["parameters"]["RecordingId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The recording. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "01931c63-5e6f-7a80-b912-3c4d5e6f7081",
                     *         "room_id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                     *         "room": {
                     *           "id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                     *           "name": "biology-101-week-3"
                     *         },
                     *         "status": "ready",
                     *         "duration_seconds": 3300,
                     *         "size_bytes": 52428800,
                     *         "started_at": "2024-11-20T14:05:00.000Z",
                     *         "stopped_at": "2024-11-20T15:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["RecordingResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    deleteRecording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Recording id. */
                id: components["parameters"]["RecordingId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The recording is soft-deleted. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "01931c63-5e6f-7a80-b912-3c4d5e6f7081",
                     *         "deleted": true,
                     *         "deleted_at": "2024-12-01T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["RecordingDeletedResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    downloadRecording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Recording id. */
                id: components["parameters"]["RecordingId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file is available at `download_url` (bare response). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "recording_id": "01931c63-5e6f-7a80-b912-3c4d5e6f7081",
                     *       "download_url": "https://storage.example.com/convene-recordings/01931c5e/01931c63.webm?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=3600&X-Amz-Signature=4f1c2b",
                     *       "status": "ready",
                     *       "duration": 3300,
                     *       "file_size": 52428800,
                     *       "provider": "s3"
                     *     }
                     */
                    "application/json": components["schemas"]["RecordingDownload"];
                };
            };
            /** @description The file is not ready yet; retry after `Retry-After` seconds (bare response). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "recording_id": "01931c63-5e6f-7a80-b912-3c4d5e6f7081",
                     *       "status": "processing",
                     *       "message": "The recording is still being processed. Retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["RecordingDownload"];
                };
            };
            400: components["responses"]["BadRequestOrInvalidState"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    archiveRecording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Recording id. */
                id: components["parameters"]["RecordingId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The recording is archived. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "01931c63-5e6f-7a80-b912-3c4d5e6f7081",
                     *         "status": "archived",
                     *         "archived_at": "2024-12-01T09:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["RecordingArchivedResponse"];
                };
            };
            400: components["responses"]["BadRequestOrInvalidState"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    recoverRecording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Recording id. */
                id: components["parameters"]["RecordingId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Reprocessing has been started. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "01931c63-5e6f-7a80-b912-3c4d5e6f7081",
                     *         "status": "processing",
                     *         "message": "Reprocessing initiated"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["RecordingRecoveredResponse"];
                };
            };
            400: components["responses"]["BadRequestOrInvalidState"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    queueTranscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Recording id. */
                id: components["parameters"]["RecordingId"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "provider": "openai"
                 *     }
                 */
                "application/json": components["schemas"]["QueueTranscriptionRequest"];
            };
        };
        responses: {
            /** @description The transcription is queued (bare response). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "transcript_id": "01931c70-1a2b-7c3d-8e4f-5a6b7c8d9e0f",
                     *       "status": "pending"
                     *     }
                     */
                    "application/json": components["schemas"]["TranscriptionQueued"];
                };
            };
            400: components["responses"]["BadRequestOrInvalidState"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    rerunPostMeeting: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Recording id. */
                id: components["parameters"]["RecordingId"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "retranscribe": false
                 *     }
                 */
                "application/json": components["schemas"]["RerunPostMeetingRequest"];
            };
        };
        responses: {
            /** @description The run is started over and its start stored (bare response). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "recording_id": "01931c63-5e6f-7a80-b912-3c4d5e6f7081",
                     *       "run": 2,
                     *       "workflow_id": "post-meeting-01931c63-5e6f-7a80-b912-3c4d5e6f7081-2",
                     *       "status": "started"
                     *     }
                     */
                    "application/json": components["schemas"]["PostMeetingRerunStarted"];
                };
            };
            400: components["responses"]["BadRequestOrInvalidState"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getRecordingTranscript: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Recording id. */
                id: components["parameters"]["RecordingId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transcript. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "01931c70-1a2b-7c3d-8e4f-5a6b7c8d9e0f",
                     *         "recording_id": "01931c63-5e6f-7a80-b912-3c4d5e6f7081",
                     *         "room_id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                     *         "status": "completed",
                     *         "provider": "openai",
                     *         "content": {
                     *           "segments": [
                     *             {
                     *               "start": 0,
                     *               "end": 4.2,
                     *               "text": "Good afternoon everyone.",
                     *               "speaker": "speaker_0"
                     *             },
                     *             {
                     *               "start": 4.2,
                     *               "end": 9.8,
                     *               "text": "Today we look at cell division.",
                     *               "speaker": "speaker_0"
                     *             }
                     *           ]
                     *         },
                     *         "failure_reason": null,
                     *         "created_at": "2024-11-20T15:10:00.000Z",
                     *         "completed_at": "2024-11-20T15:12:31.000Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["TranscriptResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    listTranscriptionProviders: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The providers this deployment has configured (bare). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "providers": [
                     *         {
                     *           "id": "openai",
                     *           "name": "OpenAI-compatible Whisper",
                     *           "supported_languages": [
                     *             "en-US",
                     *             "en-GB",
                     *             "de-DE",
                     *             "fr-FR"
                     *           ]
                     *         },
                     *         {
                     *           "id": "deepgram",
                     *           "name": "Deepgram",
                     *           "supported_languages": [
                     *             "en-US",
                     *             "es-ES"
                     *           ]
                     *         }
                     *       ],
                     *       "default_provider": "openai"
                     *     }
                     */
                    "application/json": components["schemas"]["TranscriptionProviderList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getTranscript: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Transcript id. */
                id: components["parameters"]["TranscriptId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transcript. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "01931c70-1a2b-7c3d-8e4f-5a6b7c8d9e0f",
                     *         "recording_id": "01931c63-5e6f-7a80-b912-3c4d5e6f7081",
                     *         "room_id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                     *         "status": "processing",
                     *         "provider": "openai",
                     *         "content": null,
                     *         "failure_reason": null,
                     *         "created_at": "2024-11-20T15:10:00.000Z",
                     *         "completed_at": null
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["TranscriptResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    listPostMeetingTranscripts: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A room UUID or a room name (1–100 characters). A UUID is always taken as an id; anything else is a name and
                 *     resolves to the tenant's active room of that name, else its most recently ended one.
                 */
                id: components["parameters"]["RoomIdOrName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The room's transcripts, without their content. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "01931c70-1a2b-7c3d-8e4f-5a6b7c8d9e0f",
                     *           "recording_id": "01931c63-5e6f-7a80-b912-3c4d5e6f7081",
                     *           "status": "completed",
                     *           "provider": "openai",
                     *           "failure_reason": null,
                     *           "created_at": "2024-11-20T15:10:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["PostMeetingTranscriptListResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    connectWebSocket: {
        parameters: {
            query?: {
                /**
                 * @deprecated
                 * @description The participant's access token. Deprecated in favour of `Sec-WebSocket-Protocol`.
                 */
                token?: string;
            };
            header: {
                /** @description Must be `websocket`. */
                Upgrade: "websocket";
                /**
                 * @description `convene, token.<access_token>`: the subprotocol `convene` and the participant's access token prefixed
                 *     with `token.`. Required unless the deprecated `token` query parameter is used.
                 * @example convene, token.eyJhbGciOiJFZERTQSIsImtpZCI6IjAxOTMxYzUwIn0.eyJ0eXAiOiJhY2Nlc3MifQ.c2lnbmF0dXJl
                 */
                "Sec-WebSocket-Protocol"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Switching protocols; the connection is now a WebSocket speaking the `convene` subprotocol. */
            101: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    /** @description Always `websocket`. */
                    Upgrade?: "websocket";
                    /** @description The chosen subprotocol, always `convene`. */
                    "Sec-WebSocket-Protocol"?: "convene";
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description `UPGRADE_REQUIRED`: a plain HTTP request (no WebSocket upgrade) reached the WebSocket endpoint. */
            426: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    /** @description Always `websocket`. */
                    Upgrade?: "websocket";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UPGRADE_REQUIRED",
                     *         "message": "This endpoint speaks WebSocket only: send a WebSocket upgrade (see /api/v1/asyncapi.yaml)",
                     *         "request_id": "01931c80-4d3c-7b2a-9f18-e7d6c5b4a392"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    receiveUpstreamRecordingReady: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "recording.ready",
                 *       "recording_id": "rec_7f3a9c2e1b",
                 *       "meeting_id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                 *       "url": "https://media.upstream.example/tmp/rec_7f3a9c2e1b.webm?token=5d1e",
                 *       "duration_seconds": 3300,
                 *       "size_bytes": 52428800,
                 *       "content_type": "audio/webm"
                 *     }
                 */
                "application/json": components["schemas"]["UpstreamRecordingReady"];
            };
        };
        responses: {
            /** @description The notification is accepted and ingestion has started (or was already started). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "received": true
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookReceived"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["InvalidSignature"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: components["parameters"]["Limit"];
                /** @description Number of items to skip. */
                offset?: components["parameters"]["Offset"];
                /** @description Only deliveries in this status. */
                status?: components["schemas"]["WebhookDeliveryStatus"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of deliveries. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "01931c72-9b8a-7d6c-a5b4-c3d2e1f00918",
                     *           "event": "meeting.recording_ready",
                     *           "status": "retrying",
                     *           "url": "https://hooks.acme-learning.example/convene",
                     *           "room_id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                     *           "recording_id": "01931c63-5e6f-7a80-b912-3c4d5e6f7081",
                     *           "attempt_count": 2,
                     *           "last_response_status_code": 503,
                     *           "next_attempt_at": "2024-11-20T15:19:02.000Z",
                     *           "resent_from": null,
                     *           "created_at": "2024-11-20T15:13:00.000Z",
                     *           "completed_at": null
                     *         }
                     *       ],
                     *       "meta": {
                     *         "total": 1,
                     *         "limit": 20,
                     *         "offset": 0
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookDeliveryListResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook delivery id. */
                id: components["parameters"]["DeliveryId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery and every attempt so far, oldest first. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "01931c72-9b8a-7d6c-a5b4-c3d2e1f00918",
                     *         "event": "meeting.recording_ready",
                     *         "status": "retrying",
                     *         "url": "https://hooks.acme-learning.example/convene",
                     *         "room_id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                     *         "recording_id": "01931c63-5e6f-7a80-b912-3c4d5e6f7081",
                     *         "attempt_count": 2,
                     *         "last_response_status_code": 503,
                     *         "next_attempt_at": "2024-11-20T15:19:02.000Z",
                     *         "resent_from": null,
                     *         "created_at": "2024-11-20T15:13:00.000Z",
                     *         "completed_at": null,
                     *         "attempts": [
                     *           {
                     *             "attempt": 1,
                     *             "status": "failed",
                     *             "response_status_code": null,
                     *             "duration_ms": 30000,
                     *             "error": "No response within 30 seconds",
                     *             "attempted_at": "2024-11-20T15:13:01.000Z",
                     *             "next_attempt_at": "2024-11-20T15:14:01.000Z"
                     *           },
                     *           {
                     *             "attempt": 2,
                     *             "status": "failed",
                     *             "response_status_code": 503,
                     *             "duration_ms": 214,
                     *             "error": "Receiver answered 503",
                     *             "attempted_at": "2024-11-20T15:14:02.000Z",
                     *             "next_attempt_at": "2024-11-20T15:19:02.000Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookDeliveryResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    resendWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook delivery id. */
                id: components["parameters"]["DeliveryId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new delivery is queued. */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "01931d02-3c4b-7a59-8f6e-d7c8b9a0f1e2",
                     *         "event": "meeting.recording_ready",
                     *         "status": "pending",
                     *         "url": "https://hooks.acme-learning.example/convene",
                     *         "room_id": "01931c60-8d2e-7f10-a1b2-c3d4e5f60718",
                     *         "recording_id": "01931c63-5e6f-7a80-b912-3c4d5e6f7081",
                     *         "attempt_count": 0,
                     *         "last_response_status_code": null,
                     *         "next_attempt_at": "2024-11-21T08:00:00.000Z",
                     *         "resent_from": "01931c72-9b8a-7d6c-a5b4-c3d2e1f00918",
                     *         "created_at": "2024-11-21T08:00:00.000Z",
                     *         "completed_at": null
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookDeliverySummaryResponse"];
                };
            };
            400: components["responses"]["BadRequestOrInvalidState"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    sendTestWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The test delivery is queued; its one attempt follows at once. */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "01931d02-3c4b-7a59-8f6e-d7c8b9a0f1e3",
                     *         "event": "webhook.test",
                     *         "status": "pending",
                     *         "url": "https://hooks.acme-learning.example/convene",
                     *         "room_id": null,
                     *         "recording_id": null,
                     *         "attempt_count": 0,
                     *         "last_response_status_code": null,
                     *         "next_attempt_at": "2024-11-21T08:00:00.000Z",
                     *         "resent_from": null,
                     *         "created_at": "2024-11-21T08:00:00.000Z",
                     *         "completed_at": null
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookDeliverySummaryResponse"];
                };
            };
            400: components["responses"]["BadRequestOrInvalidState"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
}
