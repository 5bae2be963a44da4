import { randomBytes } from 'node:crypto';
import { connect as tcpConnect, type Socket } from 'node:net';

// A WebSocket client that speaks the framing by hand over plain TCP and answers nothing: no pong, and no close frame
// back, so it behaves like a hostile client that ignores the server's close (docs/decisions.md §16). The `ws` package's
// client always completes the closing handshake, which would hide what the server does when nobody answers.

const OPCODE_TEXT = 0x1;
const OPCODE_CLOSE = 0x8;

export class RawSocket {
  /** Text messages received, parsed. */
  readonly messages: Array<{ event: string; data: Record<string, unknown> }> = [];
  /** The code of the close frame the server sent, once it sent one. */
  closeCode: number | undefined;
  /** Resolves when the server has closed the TCP connection. */
  readonly ended: Promise<void>;
  private readonly socket: Socket;
  private pending = Buffer.alloc(0);
  private wake: (() => void) | undefined;

  constructor(socket: Socket, rest: Buffer) {
    this.socket = socket;
    this.ended = new Promise((resolve) => socket.once('close', () => resolve()));
    // Writing after the server cut the connection fails; the test looks at what the server did, not at that.
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.read(rest);
  }

  /** Sends one masked text frame (a client must mask), even while the server is closing. */
  send(message: unknown): void {
    if (this.socket.destroyed) return;
    const payload = Buffer.from(JSON.stringify(message));
    const mask = randomBytes(4);
    const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]));
    const header =
      payload.length < 126
        ? Buffer.from([0x80 | OPCODE_TEXT, 0x80 | payload.length])
        : Buffer.from([0x80 | OPCODE_TEXT, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
    this.socket.write(Buffer.concat([header, mask, masked]));
  }

  /** The first message of this event, waiting up to timeoutMs for it. */
  async first(event: string, timeoutMs = 5000): Promise<{ event: string; data: Record<string, unknown> }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find((m) => m.event === event);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${event} within ${timeoutMs} ms; received ${JSON.stringify(this.messages.map((m) => m.event))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Resolves once the server has closed the TCP connection; fails if it has not within timeoutMs. */
  async closedByServer(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the server kept the connection open for more than ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.ended, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** Server frames are never masked and, from this server, never fragmented. */
  private read(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    for (;;) {
      const frame = parseFrame(this.pending);
      if (!frame) return;
      this.pending = this.pending.subarray(frame.length);
      if (frame.opcode === OPCODE_TEXT) this.messages.push(JSON.parse(frame.payload.toString()));
      else if (frame.opcode === OPCODE_CLOSE) this.closeCode = frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : 1005;
      // A ping (0x9) goes unanswered on purpose.
      this.wake?.();
    }
  }
}

function parseFrame(buffer: Buffer): { opcode: number; payload: Buffer; length: number } | undefined {
  if (buffer.length < 2) return undefined;
  let size = buffer[1] & 0x7f;
  let offset = 2;
  if (size === 126) {
    if (buffer.length < 4) return undefined;
    size = buffer.readUInt16BE(2);
    offset = 4;
  } else if (size === 127) {
    if (buffer.length < 10) return undefined;
    size = Number(buffer.readBigUInt64BE(2));
    offset = 10;
  }
  if (buffer.length < offset + size) return undefined;
  return { opcode: buffer[0] & 0x0f, payload: buffer.subarray(offset, offset + size), length: offset + size };
}

/** Opens a socket with the token subprotocol, as a browser would; resolves once the server answered 101. */
export function connectRaw(wsUrl: string, token: string): Promise<RawSocket> {
  const url = new URL(wsUrl);
  const socket = tcpConnect(Number(url.port), url.hostname);
  const request = [
    `GET ${url.pathname} HTTP/1.1`,
    `Host: ${url.host}`,
    'Upgrade: websocket',
    'Connection: Upgrade',
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
    'Sec-WebSocket-Version: 13',
    `Sec-WebSocket-Protocol: convene, token.${token}`,
  ];
  socket.write(`${request.join('\r\n')}\r\n\r\n`);
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.off('error', reject);
      const status = head.subarray(0, end).toString().split('\r\n')[0];
      if (!/^HTTP\/1\.1 101 /.test(status)) {
        socket.destroy();
        return reject(new Error(`upgrade refused: ${status}`));
      }
      resolve(new RawSocket(socket, head.subarray(end + 4)));
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}
