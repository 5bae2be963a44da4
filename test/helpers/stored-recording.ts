// A `ready` recording as ingestion leaves it: the file in the store (under the key ingestion derives) and its row.
// For tests that start post-meeting or transcription work without running an ingestion first.
import { Readable } from 'node:stream';
import { v7 as uuidv7 } from 'uuid';
import { RecordingSchema } from '../../src/modules/recordings/recording.entity.ts';
import { recordingObjectKey } from '../../src/storage/keys.ts';
import type { TestApp } from './test-app.ts';

export interface StoredRecordingInput {
  tenantId: string;
  roomId: string;
  /** The WAV file's bytes. */
  body: Buffer;
  durationSeconds: number;
  upstreamRecordingId?: string;
}

/** Uploads `body` and inserts the recording's `ready` row; resolves with the recording id. */
export async function storeReadyRecording(app: TestApp, input: StoredRecordingInput): Promise<string> {
  const id = uuidv7();
  const key = recordingObjectKey(input.tenantId, id, 'audio/wav');
  const stored = await app.services.store.upload({ key, body: Readable.from([input.body]), contentType: 'audio/wav' });
  const stoppedAt = Date.now() - 1000;
  const em = app.services.orm.em.fork();
  em.create(RecordingSchema, {
    id,
    tenant: input.tenantId,
    room: input.roomId,
    status: 'ready',
    ...(input.upstreamRecordingId ? { upstreamRecordingId: input.upstreamRecordingId } : {}),
    storageTier: 'primary',
    storageBucket: stored.bucket,
    objectKey: key,
    contentType: 'audio/wav',
    sizeBytes: stored.sizeBytes,
    durationSeconds: input.durationSeconds,
    startedAt: new Date(stoppedAt - input.durationSeconds * 1000),
    stoppedAt: new Date(stoppedAt),
    readyAt: new Date(),
  });
  await em.flush();
  return id;
}
