// A tiny Convene room client: joins a room over the WebSocket, prints what happens, chats and raises a hand.
//
//   npm run dev                                     # in another terminal; prints the admin key (convene-dev-admin-key)
//   npx node examples/room-client.ts --name Ada         # creates a tenant with the admin key, joins room "demo"
//   npx node examples/room-client.ts --name Bo --api-key cvn_...   # a second member of the same tenant and room
//   CONVENE_API_KEY=cvn_... npx node examples/room-client.ts --name Ada --room weekly-sync   # your tenant's room
//
// Type a line to chat; /hand raises your hand, /lower lowers it, /quit leaves. With --script the client says hello,
// raises and lowers its hand, then leaves on its own (handy to see it work once).
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';

const USAGE = `Usage: npx node examples/room-client.ts [options]
  --name <name>        your display name (default "Example client")
  --room <id or name>  the room to join; a name that does not exist yet is created (default "demo")
  --role <role>        host, participant or viewer (default participant)
  --api-key <cvn_…>    the tenant's API key (default: $CONVENE_API_KEY); without one, a new tenant is created
                       with the admin key and its key printed for a second client
  --admin-key <key>    the operator's key (default: $ADMIN_API_KEY, else convene-dev-admin-key)
  --base <url>         the API (default: $CONVENE_URL, else http://127.0.0.1:3000)
  --script             say hello, raise and lower a hand, leave
  --help               this text
In the room: type a line to chat; /hand, /lower, /quit.`;
const { values: opt } = (() => {
  try {
    return parseArgs({
      options: {
        base: { type: 'string', default: process.env.CONVENE_URL ?? 'http://127.0.0.1:3000' },
        'admin-key': { type: 'string', default: process.env.ADMIN_API_KEY ?? 'convene-dev-admin-key' },
        'api-key': { type: 'string', default: process.env.CONVENE_API_KEY },
        room: { type: 'string', default: 'demo' },
        name: { type: 'string', default: 'Example client' },
        role: { type: 'string', default: 'participant' },
        script: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
})();
if (opt.help) {
  console.log(USAGE);
  process.exit(0);
}

async function api(path: string, headers: Record<string, string>, body: unknown): Promise<any> {
  const res = await fetch(`${opt.base}/api/v1${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  }).catch((err: Error) => {
    console.error(`cannot reach Convene at ${opt.base} (${err.cause ?? err.message}): is \`npm run dev\` running? (--base to change)`);
    process.exit(1);
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

// 1. A tenant API key: given, or a fresh tenant made with the operator's admin key (printed so a second client can join).
let apiKey = opt['api-key'];
if (!apiKey) {
  const tenant = await api('/tenants', { 'X-Admin-Key': opt['admin-key']! }, { name: 'Example tenant' });
  apiKey = tenant.data.api_key as string;
  console.log(`tenant created; a second client can join with --api-key ${apiKey}`);
}

// 2. Join the room by name: adding a participant to a name that does not exist yet creates the room (early join).
const joined = await api(`/rooms/${encodeURIComponent(opt.room!)}/participants`, { 'X-API-Key': apiKey }, { display_name: opt.name, role: opt.role });
const me: string = joined.participant.id;
console.log(`joined room "${opt.room}" as ${opt.name} (${me})`);

// 3. The WebSocket: the access token travels as a subprotocol next to `convene` (never in the URL).
const wsUrl = opt.base!.replace(/^http/, 'ws') + '/api/v1/ws';
const ws = new WebSocket(wsUrl, ['convene', `token.${joined.access_token}`]);
const names = new Map<string, string>();
const who = (id: string) => (id === me ? 'you' : names.get(id) ?? id.slice(0, 8));
const send = (event: string, data?: object) => ws.send(JSON.stringify(data ? { event, data } : { event }));

ws.on('message', (raw) => {
  const { event, data } = JSON.parse(raw.toString());
  switch (event) {
    case 'room.snapshot':
      for (const p of data.participants) names.set(p.id, p.display_name);
      console.log(`in the room: ${data.participants.map((p: { id: string }) => who(p.id)).join(', ')}; hands up: ${data.raised_hands.length}`);
      break;
    case 'participant.joined':
      names.set(data.id, data.display_name);
      console.log(`→ ${data.display_name} joined (${data.role})`);
      break;
    case 'participant.left':
      console.log(`← ${who(data.id)} left`);
      break;
    case 'chat.message':
      console.log(`[${data.timestamp.slice(11, 19)}] ${who(data.sender_id)}: ${data.text}`);
      break;
    case 'hand.raised':
      console.log(`✋ ${who(data.participant_id)} raised a hand`);
      break;
    case 'hand.lowered':
      console.log(`   ${who(data.participant_id)} lowered a hand`);
      break;
    case 'recording.started':
      console.log(`⏺ recording started (${data.recording_id})`);
      break;
    case 'recording.stopped':
      console.log(`⏹ recording stopped (${data.recording_id})`);
      break;
    case 'pong':
      break; // the answer to our keep-alive ping
    case 'error':
      console.log(`! ${data.code}: ${data.message}`);
      break;
    default:
      console.log(event, JSON.stringify(data));
  }
});
ws.on('close', (code, reason) => {
  const why: Record<number, string> = { 1001: 'server shutting down', 1008: 'too many messages', 4002: 'replaced by a new session', 4003: 'removed', 4004: 'the room ended' };
  console.log(`connection closed ${code} ${why[code] ?? reason.toString()}`);
  process.exit(0);
});
ws.on('unexpected-response', (_req, res) => {
  let body = '';
  res.on('data', (chunk: Buffer) => (body += chunk));
  res.on('end', () => {
    console.error(`refused: ${res.statusCode} ${body}`);
    process.exit(1);
  });
});

await new Promise((resolve) => ws.once('open', resolve));
console.log(`connected (subprotocol ${ws.protocol})`);

if (opt.script) {
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  send('chat.send', { text: `Hello from ${opt.name}!` });
  await pause(300);
  send('hand.raise');
  await pause(300);
  send('hand.lower');
  await pause(300);
  ws.close(1000);
} else {
  console.log('type to chat; /hand, /lower, /quit');
  const input = createInterface({ input: process.stdin });
  input.on('line', (line) => {
    if (line === '/quit') ws.close(1000);
    else if (line === '/hand') send('hand.raise');
    else if (line === '/lower') send('hand.lower');
    else if (line.trim()) send('chat.send', { text: line });
  });
  // Keeps proxies that drop quiet connections from doing so (the server pings too).
  setInterval(() => send('ping'), 25_000).unref();
}
