// The rules of transcripts (docs/decisions.md §9): who may queue one, on which recording, with which provider; and what the
// read operations show. Every query filters by the caller's tenant: another tenant's ids are simply not found.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, notFound, serviceUnavailable, validationError } from '../../domain/errors.ts';
import { tenantOf, type Principal } from '../../domain/principal.ts';
import type { Logger } from '../../logger.ts';
import { tenantTranscriptionKey, type ProviderRegistry } from '../../providers/registry.ts';
import type { Handovers } from '../../handover/handover.ts';
import { starts } from '../../handover/starts.ts';
import { RecordingSchema } from '../recordings/recording.entity.ts';
import { roomForPrincipal } from '../rooms/room-access.ts';
import { TenantSchema } from '../tenants/tenant.entity.ts';
import type { TenantService } from '../tenants/tenant.service.ts';
import { createPendingTranscript, TranscriptSchema, type Transcript } from './transcript.entity.ts';

export interface TranscriptServiceDeps {
  providers: Pick<ProviderRegistry, 'transcription'>;
  handovers: Handovers;
  tenants: TenantService;
  logger: Logger;
}

/** The recordings a transcript can be made of: the file is stored (docs/decisions.md §9). */
const TRANSCRIBABLE = new Set(['ready', 'archived']);

export class TranscriptService {
  private readonly deps: TranscriptServiceDeps;

  constructor(deps: TranscriptServiceDeps) {
    this.deps = deps;
  }

  /**
   * Queue Transcription: a `pending` row and its workflow's hand-over, committed together (docs/decisions.md §15). Answers once
   * they have; Temporal being down delays the run, it never leaves a pending row that nothing will process.
   */
  async queue(em: EntityManager, principal: Principal, recordingId: string, body: { room_id?: string; provider?: string }): Promise<Transcript> {
    const tenantId = tenantOf(principal);
    const recording = await em.findOne(RecordingSchema, { id: recordingId, tenant: tenantId, deleted: false });
    if (!recording) throw notFound('Recording');
    // The recording knows its room: room_id is optional, and checked only when sent.
    if (body.room_id !== undefined && recording.room.id !== body.room_id) throw validationError('/body/room_id', 'room_id is not the room of this recording');
    if (!TRANSCRIBABLE.has(recording.status) || !recording.objectKey) {
      throw new ApiError('INVALID_STATE', `Only a ready or archived recording can be transcribed (this one is ${recording.status})`);
    }
    const tenant = await em.findOneOrFail(TenantSchema, { id: tenantId });
    const own = this.deps.tenants.effectiveConfig(tenant).post_meeting_webhook?.transcription;
    const provider = this.resolveProvider(body.provider ?? own?.provider, own);

    const { handovers } = this.deps;
    return handovers.transaction(em, async (tx) => {
      const transcript = createPendingTranscript(tx, recording, 'request', provider);
      await tx.flush();
      await handovers.record(tx, starts.transcription({ transcriptId: transcript.id, tenantId, roomId: recording.room.id, recordingId }));
      return transcript;
    });
  }

  /**
   * The provider id a transcription uses: the one asked for (or the tenant's), else the deployment's default. One
   * that is not usable (unknown, or without a key: the tenant's own key counts only for the provider it belongs to,
   * as the activity will use it) is 400 VALIDATION_ERROR, as is having none at all.
   */
  resolveProvider(requested: string | undefined, own?: { provider?: string; api_key?: string }): string {
    const { transcription } = this.deps.providers;
    if (requested !== undefined) {
      if (!transcription.isUsable(requested, { tenantKey: tenantTranscriptionKey(own, requested) })) {
        const usable = transcription.list().map((p) => p.id);
        throw validationError('/body/provider', `Unknown or unconfigured transcription provider "${requested}" (usable: ${usable.join(', ') || 'none'})`);
      }
      return requested;
    }
    const fallback = transcription.defaultId;
    if (!fallback) throw validationError('/body/provider', 'No transcription provider is configured on this deployment');
    return fallback;
  }

  async get(em: EntityManager, principal: Principal, id: string): Promise<Transcript> {
    const transcript = await em.findOne(TranscriptSchema, { id, tenant: tenantOf(principal), recording: { deleted: false } });
    if (!transcript) throw notFound('Transcript');
    return transcript;
  }

  /** docs/decisions.md §9: the newest completed transcript of the recording, else the newest one; 404 when there is none. */
  async forRecording(em: EntityManager, principal: Principal, recordingId: string): Promise<Transcript> {
    const tenantId = tenantOf(principal);
    const recording = await em.findOne(RecordingSchema, { id: recordingId, tenant: tenantId, deleted: false });
    if (!recording) throw notFound('Recording');
    const newest = (where: object) =>
      em.findOne(TranscriptSchema, { recording: recordingId, tenant: tenantId, ...where }, { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
    const transcript = (await newest({ status: 'completed' })) ?? (await newest({}));
    if (!transcript) throw notFound('Transcript');
    return transcript;
  }

  /** The transcripts post-meeting processing made for the room's (not deleted) recordings, newest first. */
  async postMeetingOfRoom(em: EntityManager, principal: Principal, roomRef: string): Promise<Transcript[]> {
    const room = await roomForPrincipal(em, principal, roomRef);
    return em.find(
      TranscriptSchema,
      { room: room.id, tenant: room.tenant.id, origin: 'post_meeting', recording: { deleted: false } },
      { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], limit: 10_000 },
    );
  }

  /** The deployment's transcription providers; none configured is 503, for a while (the operator may add one). */
  listProviders() {
    const { transcription } = this.deps.providers;
    const defaultProvider = transcription.defaultId;
    if (!defaultProvider) throw serviceUnavailable('No transcription provider is configured on this deployment', 60);
    return {
      providers: transcription.list().map((p) => ({ id: p.id, name: p.name, supported_languages: [...p.supportedLanguages] })),
      default_provider: defaultProvider,
    };
  }
}
