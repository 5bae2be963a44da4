import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { RoomSchema } from '../rooms/room.entity.ts';
import { TenantSchema } from '../tenants/tenant.entity.ts';

/** docs/decisions.md §7: the upstream flow's "completed" is `ready`; `failed` when ingestion fails after its retries. */
export type RecordingStatus = 'recording' | 'processing' | 'ready' | 'archived' | 'failed';

/** Which bucket holds the file: the primary one, or the archive (cold) one. Null until stored. */
export type StorageTier = 'primary' | 'archive';

export const RecordingSchema = defineEntity({
  name: 'Recording',
  tableName: 'recordings',
  indexes: [
    {
      name: 'recordings_tenant_created_index',
      expression: 'create index "recordings_tenant_created_index" on "recordings" ("tenant_id", "created_at" desc, "id" desc) where "deleted" = false',
    },
    { name: 'recordings_room_index', expression: 'create index "recordings_room_index" on "recordings" ("room_id")' },
  ],
  uniques: [
    {
      // At most one active recording per room, whatever races two starts into the database.
      name: 'recordings_room_active_unique',
      expression: `create unique index "recordings_room_active_unique" on "recordings" ("room_id") where "status" = 'recording'`,
    },
    {
      // One Convene recording per provider recording: a duplicate notification or a repeated sync imports nothing twice.
      name: 'recordings_upstream_unique',
      expression: 'create unique index "recordings_upstream_unique" on "recordings" ("upstream_recording_id") where "upstream_recording_id" is not null',
    },
  ],
  properties: {
    id: p.uuid().primary(),
    tenant: () => p.manyToOne(TenantSchema).deleteRule('cascade'),
    room: () => p.manyToOne(RoomSchema).deleteRule('cascade'),
    status: p.string().length(16).$type<RecordingStatus>(),
    /** The media provider's id of this recording; required by Recover. */
    upstreamRecordingId: p.string().length(255).nullable(),
    /** Where the stored file lives: tier, bucket and key. Null until ingested. */
    storageTier: p.string().length(16).$type<StorageTier>().nullable(),
    storageBucket: p.string().length(255).nullable(),
    objectKey: p.string().length(1024).nullable(),
    contentType: p.string().length(255).nullable(),
    sizeBytes: p.bigint('number').nullable(),
    durationSeconds: p.integer().nullable(),
    startedAt: p.datetime().nullable(),
    stoppedAt: p.datetime().nullable(),
    readyAt: p.datetime().nullable(),
    archivedAt: p.datetime().nullable(),
    /** Soft delete: hidden from list and get, data kept until retention purges it. */
    deleted: p.boolean().default(false),
    deletedAt: p.datetime().nullable(),
    /** When retention removed the stored objects. */
    purgedAt: p.datetime().nullable(),
    /**
     * The notification's temporary download link with its content type and size (docs/decisions.md §7), sealed with
     * SECRETS_KEY (src/modules/recordings/recording-source.ts): the transfer activity reads it, so the link never
     * enters workflow history. Cleared once the file is stored.
     */
    sourceSealed: p.text().nullable(),
    /** Why ingestion failed, for operators (never shown through the API). */
    failureReason: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export type Recording = InferEntity<typeof RecordingSchema>;
