// The browser side of a Convene room (spec/asyncapi.yaml, docs/realtime.md): one WebSocket, authenticated by the
// `convene` + `token.<access_token>` subprotocols, and a page that mirrors what the server says. The server is the
// only source of truth: nothing is shown optimistically, every change on screen comes from an event. A dropped socket
// resumes by itself (docs/realtime.md, "Resuming after a drop"): the page remembers the last `seq` it applied and
// reconnects with `resume_from`, waiting longer after each failed attempt.

const $ = (selector) => document.querySelector(selector);

/** Why the server closed the socket (docs/realtime.md, "Closing"). */
const CLOSE_REASONS = {
  1001: 'the server is restarting: join again',
  1008: 'too many messages',
  4002: 'you joined from somewhere else',
  4003: 'you were removed from the room',
  4004: 'the room has ended',
  4006: 'you opened this room in too many tabs or devices',
};

/** Closes after which reconnecting helps: a restart (1001), a drop without a close frame (1006), a server error (1011). */
const RESUMABLE = new Set([1001, 1006, 1011]);
/** Reconnect delays: 1 s doubling to 30 s, with jitter; the page gives up after this many attempts that never opened. */
const RETRY_MAX_DELAY_MS = 30_000;
const RETRY_ATTEMPTS = 8;

const state = {
  socket: null,
  me: null, // participant id, from the token's claims
  people: new Map(), // id → { display_name, role }
  raised: [], // participant ids, in raising order
  lastSeq: null, // the `seq` of the last room event applied (or of the snapshot): where to resume from
  retry: { attempt: 0, timer: null },
};

/** The token's payload, read only for our own participant id (the server verifies the token, we never need to). */
function claimsOf(token) {
  try {
    const payload = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(atob(payload));
  } catch {
    return {};
  }
}

/** Joins afresh (a new token, a new snapshot). */
function join(server, token) {
  clearTimeout(state.retry.timer);
  state.retry.attempt = 0;
  state.lastSeq = null;
  connect(server, token);
}

/** Opens the socket; with `state.lastSeq` set, as a resume: the events missed since, instead of a snapshot. */
function connect(server, token) {
  state.socket?.close(1000);
  state.me = claimsOf(token).participant_id ?? null;
  const resuming = state.lastSeq !== null;
  const url = `${server.replace(/\/+$/, '')}/api/v1/ws${resuming ? `?resume_from=${state.lastSeq}` : ''}`;
  const socket = new WebSocket(url, ['convene', `token.${token}`]);
  let opened = false;
  state.socket = socket;
  setStatus(resuming ? 'Reconnecting…' : 'Connecting…');
  socket.addEventListener('open', () => {
    opened = true;
    state.retry.attempt = 0;
    // A resumed socket gets no snapshot: it is in the room as soon as it is open.
    if (resuming) connected();
  });
  socket.addEventListener('message', (e) => {
    if (socket === state.socket) handle(JSON.parse(e.data));
  });
  socket.addEventListener('close', (e) => {
    if (socket !== state.socket) return;
    state.socket = null;
    enableControls(false);
    document.body.dataset.closeCode = String(e.code);
    // A dropped socket (or one that failed while reconnecting) tries again; a refused first upgrade (bad or expired
    // token, wrong origin: 1006 before the socket ever opened) and every deliberate close do not.
    const again = RESUMABLE.has(e.code) && (opened || state.retry.attempt > 0) && state.retry.attempt < RETRY_ATTEMPTS;
    if (again) {
      const delay = Math.min(RETRY_MAX_DELAY_MS, 1000 * 2 ** state.retry.attempt) * (0.5 + Math.random() / 2);
      state.retry.attempt += 1;
      setStatus(`Connection lost: reconnecting in ${Math.ceil(delay / 1000)} s…`);
      if (opened) notice('Connection lost: reconnecting');
      state.retry.timer = setTimeout(() => connect(server, token), delay);
      return;
    }
    const why = CLOSE_REASONS[e.code] ?? (e.code === 1006 ? 'could not connect (check the token and the server)' : `closed (${e.code})`);
    setStatus(`Disconnected: ${why}`);
    notice(`Disconnected: ${why}`);
  });
}

function connected() {
  setStatus(`Connected as ${state.people.get(state.me)?.display_name ?? 'participant'}`);
  document.body.dataset.joined = 'true';
  enableControls(true);
}

/**
 * Reads the room over the REST API (Get Room) with the participant's `auth_token`: a cross-origin call, so the
 * tenant's `allowed_origins` must list this page's origin (docs/integrating.md, "Calling the API from a browser").
 * Refused by CORS, `fetch` rejects with a TypeError and the page says so.
 */
async function loadRoom(server, authToken) {
  const roomId = claimsOf(authToken).room_id;
  const base = server.replace(/^ws/, 'http').replace(/\/+$/, '');
  try {
    const res = await fetch(`${base}/api/v1/rooms/${encodeURIComponent(roomId ?? '')}`, { headers: { Authorization: `Bearer ${authToken}` } });
    const body = await res.json();
    if (!res.ok) throw new Error(body.error?.message ?? `HTTP ${res.status}`);
    $('#room').textContent = `Room: ${(body.data ?? body).name}`;
    document.body.dataset.room = 'loaded';
  } catch (err) {
    $('#room').textContent = `Could not read the room: ${err.message}`;
    document.body.dataset.room = 'failed';
  }
}

function send(message) {
  state.socket?.send(JSON.stringify(message));
}

function handle({ event, seq, data }) {
  // Room events are numbered: one at or below the last applied is a repeat (docs/realtime.md, "Resuming after a drop").
  if (typeof seq === 'number' && event !== 'room.snapshot') {
    if (state.lastSeq !== null && seq <= state.lastSeq) return;
    state.lastSeq = seq;
  }
  switch (event) {
    case 'room.snapshot':
      state.lastSeq = typeof seq === 'number' ? seq : null;
      state.people = new Map(data.participants.map((p) => [p.id, p]));
      state.raised = [...data.raised_hands];
      showRecording(data.recording !== null);
      connected();
      break;
    case 'resync_required':
      // Away too long: a fresh snapshot follows; what happened meanwhile (chat included) is not sent again.
      notice('Reconnected after too long: some messages may be missing');
      break;
    case 'participant.joined':
      state.people.set(data.id, data);
      notice(`${data.display_name} joined`);
      break;
    case 'participant.left':
      notice(`${nameOf(data.id)} left`);
      state.people.delete(data.id);
      state.raised = state.raised.filter((id) => id !== data.id);
      break;
    case 'chat.message':
      addChat(data);
      break;
    case 'hand.raised':
      if (!state.raised.includes(data.participant_id)) state.raised.push(data.participant_id);
      break;
    case 'hand.lowered':
      state.raised = state.raised.filter((id) => id !== data.participant_id);
      break;
    case 'recording.started':
      showRecording(true);
      notice('Recording started');
      break;
    case 'recording.stopped':
      showRecording(false);
      notice('Recording stopped');
      break;
    case 'room.ended':
      notice('The room has ended');
      break;
    case 'error':
      notice(`Refused: ${data.message} (${data.code})`);
      break;
    // `pong` and events added to the contract later need nothing on screen.
  }
  renderPeople();
}

const nameOf = (id) => state.people.get(id)?.display_name ?? 'Someone';

function renderPeople() {
  const list = $('#participants');
  list.replaceChildren(
    ...[...state.people.values()].map((p) => {
      const li = document.createElement('li');
      li.textContent = `${p.display_name} (${p.role})`; // textContent: names are user input, never HTML
      li.dataset.id = p.id;
      li.classList.toggle('raised', state.raised.includes(p.id));
      li.classList.toggle('me', p.id === state.me);
      return li;
    }),
  );
  $('#hand').textContent = state.raised.includes(state.me) ? 'Lower hand' : 'Raise hand';
}

function addChat({ sender_id, text, timestamp }) {
  const li = document.createElement('li');
  const sender = document.createElement('span');
  sender.className = 'sender';
  sender.textContent = nameOf(sender_id);
  const body = document.createElement('span');
  body.className = 'text';
  body.textContent = text;
  li.title = new Date(timestamp).toLocaleString();
  li.append(sender, body);
  $('#chat').append(li);
  li.scrollIntoView({ block: 'nearest' });
}

function notice(text) {
  const li = document.createElement('li');
  li.textContent = `${new Date().toLocaleTimeString()} ${text}`;
  $('#notices').prepend(li);
}

function setStatus(text) {
  $('#status').textContent = text;
}

function showRecording(on) {
  $('#recording').hidden = !on;
}

function enableControls(on) {
  for (const el of [$('#hand'), $('#chat-text'), $('#chat-form button')]) el.disabled = !on;
}

$('#join').addEventListener('submit', (e) => {
  e.preventDefault();
  join($('#server').value.trim(), $('#token').value.trim());
});

$('#chat-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const text = $('#chat-text').value;
  if (!text.trim()) return;
  send({ event: 'chat.send', data: { text } });
  $('#chat-text').value = '';
});

$('#hand').addEventListener('click', () => {
  send({ event: state.raised.includes(state.me) ? 'hand.lower' : 'hand.raise' });
});

// `#server=…&token=…` joins at once: a tenant's backend can hand a participant a ready link. `&auth=<auth_token>`
// also reads the room's details over the REST API.
const params = new URLSearchParams(location.hash.slice(1));
if (params.get('server')) $('#server').value = params.get('server');
if (params.get('auth')) void loadRoom($('#server').value.trim(), params.get('auth'));
if (params.get('token')) {
  $('#token').value = params.get('token');
  join($('#server').value.trim(), params.get('token'));
}
