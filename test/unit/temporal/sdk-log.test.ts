// The worker's Temporal SDK log lines go through our logger, and only real faults are warnings (src/worker.ts,
// forwardSdkLog): a quiet `npm run dev` (docs/development.md).
import { forwardSdkLog } from '../../../src/worker.ts';
import type { Logger } from '../../../src/logger.ts';

function recorder() {
  const lines: Array<[string, string, unknown]> = [];
  const at = (level: string) => (meta: unknown, message: string) => void lines.push([level, message, meta]);
  const logger = { trace: at('trace'), debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } as unknown as Logger;
  return { lines, logger };
}
const entry = (level: 'INFO' | 'WARN' | 'ERROR', message: string, meta: Record<string, unknown>) => ({ level, message, meta, timestampNanos: 0n });

test('the SDK lifecycle lines (webpack listing, state changes) and activity-only queues are debug', () => {
  const { lines, logger } = recorder();
  forwardSdkLog(entry('INFO', 'asset workflow-bundle.js 1.72 MiB [emitted]', { sdkComponent: 'worker', taskQueue: 'convene' }), 'convene', logger);
  forwardSdkLog(entry('INFO', 'Worker state changed', { sdkComponent: 'worker', taskQueue: 'convene', state: 'RUNNING' }), 'convene', logger);
  forwardSdkLog(entry('WARN', 'No workflows registered, not polling for workflow tasks', { sdkComponent: 'worker', taskQueue: 'convene-transcription-openai' }), 'convene', logger);
  expect(lines.map(([level]) => level)).toEqual(['debug', 'debug', 'debug']);
});

test('real faults keep their level; so do workflow and activity lines', () => {
  const { lines, logger } = recorder();
  forwardSdkLog(entry('WARN', 'No workflows registered, not polling for workflow tasks', { sdkComponent: 'worker', taskQueue: 'convene' }), 'convene', logger);
  forwardSdkLog(entry('ERROR', 'Worker failed', { sdkComponent: 'worker', taskQueue: 'convene' }), 'convene', logger);
  forwardSdkLog(entry('WARN', 'post-meeting step failed', { sdkComponent: 'workflow', recordingId: 'r1' }), 'convene', logger);
  forwardSdkLog(entry('INFO', 'an activity line', { sdkComponent: 'activity' }), 'convene', logger);
  expect(lines.map(([level, message]) => [level, message])).toEqual([
    ['warn', 'No workflows registered, not polling for workflow tasks'],
    ['error', 'Worker failed'],
    ['warn', 'post-meeting step failed'],
    ['info', 'an activity line'],
  ]);
  expect(lines[2][2]).toMatchObject({ recordingId: 'r1' });
});
