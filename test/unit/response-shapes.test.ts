// The README's table of response shapes ({"data": …} or the resource itself) is derived from spec/openapi.yaml by
// scripts/response-shapes.ts; it must be the table the spec gives today, so it cannot drift from the contract.
import { readFileSync } from 'node:fs';
import { README, readSpec, responseShapes, withFreshTable } from '../../scripts/response-shapes.ts';

test('the README carries the table the spec gives (node scripts/response-shapes.ts --write to refresh it)', () => {
  const readme = readFileSync(README, 'utf8');
  expect(readme).toBe(withFreshTable(readme, readSpec()));
});

test('the table tells wrapped answers from bare ones, as the walk-through reads them', () => {
  const shapes = new Map(responseShapes(readSpec()).map((row) => [row.operationId, row.shape]));
  expect(shapes.get('createTenant')).toBe('`{"data": {…}}`');
  expect(shapes.get('startRecording')).toBe('`{"data": {…}}`');
  expect(shapes.get('listWebhookDeliveries')).toBe('`{"data": […], "meta": …}`');
  expect(shapes.get('createRoom')).toBe('bare `Room`');
  expect(shapes.get('addParticipant')).toBe('bare `AddParticipantResponse`');
  expect(shapes.get('downloadRecording')).toBe('bare `RecordingDownload`');
  expect(shapes.get('deleteRoom')).toBe('no body');
});

test('every operation of the spec has a row', () => {
  const spec = readSpec();
  const operationIds = [...spec.matchAll(/^\s+operationId: (\w+)$/gm)].map((match) => match[1]);
  expect(responseShapes(spec).map((row) => row.operationId).sort()).toEqual(operationIds.sort());
});
