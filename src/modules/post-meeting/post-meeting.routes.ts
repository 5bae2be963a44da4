import type { EntityManager } from '@mikro-orm/postgresql';
import { handler, type Handlers } from '../../http/handler.ts';
import type { PostMeetingService } from './post-meeting.service.ts';

// Thin handlers: read the typed input, call the service (which checks access), shape the answer as the spec says.
export function postMeetingRoutes(deps: { postMeeting: PostMeetingService; em: () => EntityManager }): Handlers {
  const { postMeeting, em } = deps;
  return {
    rerunPostMeeting: handler<'rerunPostMeeting'>(async ({ params, body }, principal) => {
      const started = await postMeeting.rerun(em(), principal, params.id, body ?? {});
      return { status: 202, body: { recording_id: started.recording.id, run: started.run, workflow_id: started.workflowId, status: 'started' } };
    }),
  };
}
