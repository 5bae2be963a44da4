// The WebSocket and webhook message schemas in generated/asyncapi-schemas.json, compiled the way the gateway and
// the tests compile them (ajv, strict, with formats), accept the spec's examples and refuse realistic bad messages.
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { CLIENT_EVENTS, CloseCode, SERVER_EVENTS } from '../../generated/asyncapi.ts';
import type { ClientMessage, MeetingRecordingReadyPayload, RecordingReadyNotification, ServerMessage } from '../../generated/asyncapi.ts';

type Schema = Record<string, unknown>;
interface SchemaFile {
  client: Record<string, Schema>;
  server: Record<string, Schema>;
  webhooks: { outgoing: Record<string, Schema>; incoming: Record<string, Schema> };
}

const schemas = JSON.parse(
  readFileSync(new URL('../../generated/asyncapi-schemas.json', import.meta.url), 'utf8'),
) as SchemaFile;
const spec = parseYaml(readFileSync(new URL('../../spec/asyncapi.yaml', import.meta.url), 'utf8')) as {
  components: { messages: Record<string, { name: string; examples?: { name?: string; payload?: unknown }[] }> };
};

const ajv = new Ajv({ allErrors: true, strict: true });
addFormats.default(ajv);
const compileAll = (group: Record<string, Schema>): Map<string, ValidateFunction> =>
  new Map(Object.entries(group).map(([event, schema]) => [event, ajv.compile(schema)]));
const client = compileAll(schemas.client);
const server = compileAll(schemas.server);
const outgoing = compileAll(schemas.webhooks.outgoing);
const incoming = compileAll(schemas.webhooks.incoming);

/** What the gateway does with a parsed frame: pick the schema by `event`; an unknown event has none. */
function acceptsClientMessage(message: unknown): boolean {
  const event = (message as { event?: unknown } | null)?.event;
  const validate = typeof event === 'string' ? client.get(event) : undefined;
  return validate !== undefined && validate(message) === true;
}

function acceptsServerMessage(message: unknown): boolean {
  const event = (message as { event?: unknown } | null)?.event;
  const validate = typeof event === 'string' ? server.get(event) : undefined;
  return validate !== undefined && validate(message) === true;
}

const PARTICIPANT = '0192f0a4-8a2b-7c4d-8e5f-6a7b8c9d0e1f';
const RECORDING = '0192f0a5-1b2c-7d3e-8f4a-5b6c7d8e9f0a';

describe('the event sets', () => {
  test('clients may send exactly chat.send, hand.raise, hand.lower, ping and resume', () => {
    expect(Object.keys(schemas.client).sort()).toEqual(['chat.send', 'hand.lower', 'hand.raise', 'ping', 'resume']);
    expect([...CLIENT_EVENTS].sort()).toEqual(Object.keys(schemas.client).sort());
  });

  test('the server sends the snapshot, presence, chat, hands, recording, room end, pong, error and resync_required events', () => {
    expect(Object.keys(schemas.server).sort()).toEqual([
      'chat.message',
      'error',
      'hand.lowered',
      'hand.raised',
      'participant.joined',
      'participant.left',
      'pong',
      'recording.started',
      'recording.stopped',
      'resync_required',
      'room.ended',
      'room.snapshot',
    ]);
    expect([...SERVER_EVENTS].sort()).toEqual(Object.keys(schemas.server).sort());
  });

  test('two outgoing webhook events (the post-meeting one and the test event) and one incoming', () => {
    expect(Object.keys(schemas.webhooks.outgoing).sort()).toEqual(['meeting.recording_ready', 'webhook.test']);
    expect(Object.keys(schemas.webhooks.incoming)).toEqual(['recording.ready']);
  });

  test('close codes', () => {
    expect(CloseCode).toMatchObject({
      SERVER_SHUTDOWN: 1001,
      POLICY_VIOLATION: 1008,
      REPLACED_BY_DUPLICATE: 4002,
      PARTICIPANT_REMOVED: 4003,
      ROOM_ENDED: 4004,
    });
  });
});

describe('every example in spec/asyncapi.yaml validates', () => {
  const groups = [client, server, outgoing, incoming];
  const cases = Object.entries(spec.components.messages).flatMap(([id, message]) =>
    (message.examples ?? []).map((example, index) => [`${message.name} ${example.name ?? index}`, id, message.name, example.payload] as const),
  );
  const covered = new Set<string>();

  test.each(cases)('%s', (_label, _id, name, payload) => {
    const validate = groups.find((group) => group.has(name))?.get(name);
    if (!validate) return; // HTTP replies (202/401 bodies) are not messages of these four groups
    covered.add(name);
    const valid = validate(payload);
    expect(valid ? null : validate.errors).toBeNull();
  });

  test('every schema had at least one example', () => {
    const all = [...client.keys(), ...server.keys(), ...outgoing.keys(), ...incoming.keys()];
    expect(all.filter((name) => !covered.has(name))).toEqual([]);
  });
});

describe('client messages', () => {
  // Typed as the generated union, so `npm run typecheck` also holds the types to the same examples.
  const valid: ClientMessage[] = [
    { event: 'chat.send', data: { text: 'hello' } },
    { event: 'chat.send', data: { text: 'x'.repeat(4000) } },
    // 4000 characters outside the BMP: 8000 UTF-16 units, still 4000 characters.
    { event: 'chat.send', data: { text: '😀'.repeat(4000) } },
    { event: 'hand.raise' },
    { event: 'hand.raise', data: {} },
    { event: 'hand.lower' },
    { event: 'ping' },
    { event: 'ping', data: {} },
    { event: 'resume', data: { resume_from: 0 } },
    { event: 'resume', data: { resume_from: 42 } },
  ];
  test.each(valid.map((message) => [JSON.stringify(message).slice(0, 60), message]))('accepts %s', (_label, message) => {
    expect(acceptsClientMessage(message)).toBe(true);
  });

  const invalid: [string, unknown][] = [
    ['an unknown event', { event: 'chat.edit', data: { text: 'hi' } }],
    ['a server event sent by a client', { event: 'chat.message', data: { id: PARTICIPANT, sender_id: PARTICIPANT, text: 'hi', timestamp: '2025-01-15T10:31:12.345Z' } }],
    ['no event', { data: { text: 'hi' } }],
    ['a non-string event', { event: 42, data: {} }],
    ['a text over 4000 characters', { event: 'chat.send', data: { text: 'x'.repeat(4001) } }],
    ['an empty text', { event: 'chat.send', data: { text: '' } }],
    ['a text that is not a string', { event: 'chat.send', data: { text: 12 } }],
    ['chat.send without data', { event: 'chat.send' }],
    ['chat.send with null data', { event: 'chat.send', data: null }],
    ['chat.send without text', { event: 'chat.send', data: {} }],
    ['an extra field in data', { event: 'chat.send', data: { text: 'hi', html: '<b>hi</b>' } }],
    ['an extra top-level field', { event: 'ping', data: {}, id: 1 }],
    ['ping with data that is not empty', { event: 'ping', data: { at: 1 } }],
    ['hand.raise with null data', { event: 'hand.raise', data: null }],
    ['hand.lower with an array as data', { event: 'hand.lower', data: [] }],
    ['resume without resume_from', { event: 'resume', data: {} }],
    ['resume from a negative seq', { event: 'resume', data: { resume_from: -1 } }],
    ['resume from a seq that is not an integer', { event: 'resume', data: { resume_from: '42' } }],
    ['a bare string', 'ping'],
    ['null', null],
  ];
  test.each(invalid)('refuses %s', (_label, message) => {
    expect(acceptsClientMessage(message)).toBe(false);
  });
});

describe('server messages', () => {
  const valid: ServerMessage[] = [
    { event: 'room.snapshot', seq: 0, data: { participants: [], raised_hands: [], recording: null } },
    { event: 'participant.joined', seq: 1, data: { id: PARTICIPANT, display_name: 'Viewer', role: 'viewer' } },
    { event: 'recording.started', seq: 2, data: { recording_id: RECORDING } },
    { event: 'pong', data: {} },
    { event: 'error', data: { code: 'UNKNOWN_EVENT', message: 'Unknown event "chat.edit"' } },
    { event: 'resync_required', data: { resume_from: 7, reason: 'expired' } },
  ];
  test.each(valid.map((message) => [message.event, message]))('accepts %s', (_label, message) => {
    expect(acceptsServerMessage(message)).toBe(true);
  });

  const invalid: [string, unknown][] = [
    ['a snapshot without recording', { event: 'room.snapshot', data: { participants: [], raised_hands: [] } }],
    ['a snapshot whose recording lacks started_at', { event: 'room.snapshot', data: { participants: [], raised_hands: [], recording: { recording_id: RECORDING } } }],
    ['a snapshot with the same raised hand twice', { event: 'room.snapshot', data: { participants: [], raised_hands: [PARTICIPANT, PARTICIPANT], recording: null } }],
    ['an unknown role', { event: 'participant.joined', data: { id: PARTICIPANT, display_name: 'Eve', role: 'admin' } }],
    ['an id that is not a UUID', { event: 'participant.left', data: { id: '42' } }],
    ['a chat message without a timestamp', { event: 'chat.message', data: { id: PARTICIPANT, sender_id: PARTICIPANT, text: 'hi' } }],
    ['a chat message with a timestamp that is not ISO 8601', { event: 'chat.message', data: { id: PARTICIPANT, sender_id: PARTICIPANT, text: 'hi', timestamp: 'yesterday' } }],
    ['pong without data', { event: 'pong' }],
    ['an error with an unknown code', { event: 'error', data: { code: 'OOPS', message: 'x' } }],
    ['hand.raised carrying the client field name', { event: 'hand.raised', data: { id: PARTICIPANT } }],
    ['room.ended without ended_at', { event: 'room.ended', seq: 3, data: { room_id: PARTICIPANT } }],
    ['a room event without seq', { event: 'hand.raised', data: { participant_id: PARTICIPANT } }],
    ['a room event numbered 0', { event: 'hand.raised', seq: 0, data: { participant_id: PARTICIPANT } }],
    ['a snapshot without seq', { event: 'room.snapshot', data: { participants: [], raised_hands: [], recording: null } }],
    ['pong with a seq (replies are not numbered)', { event: 'pong', seq: 4, data: {} }],
    ['resync_required with an unknown reason', { event: 'resync_required', data: { resume_from: 7, reason: 'late' } }],
  ];
  test.each(invalid)('refuses %s', (_label, message) => {
    expect(acceptsServerMessage(message)).toBe(false);
  });
});

describe('webhook payloads', () => {
  const minimal: MeetingRecordingReadyPayload = {
    event: 'meeting.recording_ready',
    timestamp: '2025-01-15T11:50:00.000Z',
    meeting: {
      id: '0192f0a3-0a1b-7c2d-8e3f-4a5b6c7d8e9f',
      name: 'Weekly planning',
      started_at: '2025-01-15T10:25:00.000Z',
      ended_at: '2025-01-15T11:30:00.000Z',
      duration_seconds: 3900,
      participant_count: 2,
    },
  };
  const validateOutgoing = outgoing.get('meeting.recording_ready')!;
  const validateIncoming = incoming.get('recording.ready')!;

  test('a payload with every include flag off carries event, timestamp and meeting only', () => {
    expect(validateOutgoing(minimal)).toBe(true);
  });

  test.each([
    ['no meeting', { ...minimal, meeting: undefined }],
    ['a meeting without participant_count', { ...minimal, meeting: { ...minimal.meeting, participant_count: undefined } }],
    ['a summary that is a number', { ...minimal, summary: 3 }],
    ['action items that are objects', { ...minimal, action_items: [{ text: 'x' }] }],
    ['a segment with a speaker (not part of the webhook)', { ...minimal, transcript: { id: RECORDING, text: 'a', word_count: 1, language: 'en-US', provider: 'openai', segments: [{ start: 0, end: 1, text: 'a', speaker: 'A' }] } }],
    ['an errors entry naming an unknown field', { ...minimal, errors: [{ field: 'meeting', code: 'x', message: 'x' }] }],
    ['an empty errors list', { ...minimal, errors: [] }],
    ['another event name', { ...minimal, event: 'meeting.started' }],
    ['an unknown top-level field', { ...minimal, tenant_id: 'x' }],
  ])('refuses a meeting.recording_ready payload with %s', (_label, payload) => {
    expect(validateOutgoing(JSON.parse(JSON.stringify(payload)))).toBe(false);
  });

  const notification: RecordingReadyNotification = {
    type: 'recording.ready',
    recording_id: 'up_rec_81f2c0',
    meeting_id: '0192f0a3-0a1b-7c2d-8e3f-4a5b6c7d8e9f',
    url: 'http://127.0.0.1:4010/files/up_rec_81f2c0.wav?sig=abc',
    duration_seconds: 12,
    size_bytes: 384044,
    content_type: 'audio/wav',
  };

  test('an upstream notification for a local development server validates', () => {
    expect(validateIncoming(notification)).toBe(true);
  });

  test.each([
    ['another type', { ...notification, type: 'recording.started' }],
    ['a meeting id that is not a UUID', { ...notification, meeting_id: 'room-1' }],
    ['a negative size', { ...notification, size_bytes: -1 }],
    ['a fractional duration', { ...notification, duration_seconds: 1.5 }],
    ['no url', { ...notification, url: undefined }],
    ['an extra field', { ...notification, signature: 'abc' }],
  ])('refuses an upstream notification with %s', (_label, payload) => {
    expect(validateIncoming(JSON.parse(JSON.stringify(payload)))).toBe(false);
  });
});
