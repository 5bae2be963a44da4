// The rules of post-meeting runs the API starts: a re-run of a recording's processing (docs/decisions.md §9 "Outages and
// re-runs"). The runs themselves are workflows/post-meeting.ts with the stages of post-meeting-steps.ts. No req/res.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import type { Handovers } from '../../handover/handover.ts';
import { starts } from '../../handover/starts.ts';
import type { Recording } from '../recordings/recording.entity.ts';
import type { RecordingService } from '../recordings/recording.service.ts';
import { startPostMeetingOver } from './post-meeting-rerun.ts';
import { PostMeetingResultSchema } from './post-meeting-result.entity.ts';

export interface PostMeetingServiceDeps {
  /** The recording the caller may see (another tenant's, or a deleted one, is not found). */
  recordings: Pick<RecordingService, 'get'>;
  handovers: Handovers;
}

export class PostMeetingService {
  private readonly deps: PostMeetingServiceDeps;

  constructor(deps: PostMeetingServiceDeps) {
    this.deps = deps;
  }

  /**
   * POST /recordings/{id}/post-meeting (docs/decisions.md §9 "Outages and re-runs"): a new post-meeting run, n = the result's
   * run + 1. Only a recording whose file is stored (`ready`, `archived`) and whose last run has finished. The result row
   * is started over as run n and the run's hand-over recorded in one transaction (docs/decisions.md §15): the answer comes once
   * both have committed, whether or not Temporal is reachable. A second request for the same n (sent before it could see
   * the first's run) gets the same run: its id is derived from n.
   */
  async rerun(
    em: EntityManager,
    principal: Principal,
    recordingId: string,
    options: { retranscribe?: boolean } = {},
  ): Promise<{ recording: Recording; run: number; workflowId: string }> {
    const recording = await this.deps.recordings.get(em, principal, recordingId);
    if ((recording.status !== 'ready' && recording.status !== 'archived') || !recording.objectKey) {
      throw new ApiError('INVALID_STATE', `Only a ready or archived recording can be processed again (this one is ${recording.status})`);
    }
    const result = await em.findOne(PostMeetingResultSchema, { recording: recording.id, tenant: recording.tenant.id });
    if (!result || result.status !== 'completed') throw stillRunning();
    const run = result.run + 1;
    const retranscribe = options.retranscribe ?? false;
    const start = starts.postMeetingRerun({ recordingId: recording.id, tenantId: recording.tenant.id, room: recording.room, run, retranscribe });
    const { handovers } = this.deps;
    await handovers.transaction(em, async (tx) => {
      if (!(await startPostMeetingOver(tx, recording.id, run, retranscribe))) {
        // Another request started run n first (same run, same id: recording it again starts nothing new), or a later one.
        const now = await tx.findOne(PostMeetingResultSchema, { recording: recording.id }, { refresh: true });
        if (now?.run !== run) throw stillRunning();
      }
      await handovers.record(tx, start);
    });
    return { recording, run, workflowId: start.workflowId };
  }
}

const stillRunning = () =>
  new ApiError('INVALID_STATE', 'Post-meeting processing of this recording is still running; re-run it once it has finished');
