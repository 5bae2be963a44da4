// Every workflow the worker registers is exported from here. Workflow code is deterministic: no Node built-ins,
// no I/O; it calls activities (src/activities/) through proxyActivities.
export { emptyRoomWorkflow } from './empty-room.ts';
