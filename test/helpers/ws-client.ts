import WebSocket from 'ws';
import type { ServerEventName, ServerMessage, ServerMessageOf } from '../../generated/asyncapi.ts';
import { serverMessageErrors } from '../../src/realtime/messages.ts';

// A WebSocket client for tests that speaks the contract: every message it receives is validated against the
// AsyncAPI message schemas (generated/asyncapi-schemas.json); a message that breaks them fails the test that reads it.

export interface ConnectOptions {
  /** How the token travels: the preferred subprotocol (default) or the deprecated query parameter. */
  via?: 'subprotocol' | 'query';
  origin?: string;
}

export interface Refusal {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { error: { code: string; message: string; request_id: string } };
}

export class TestSocket {
  readonly ws: WebSocket;
  readonly received: ServerMessage[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private cursor = 0;
  private wake: (() => void) | undefined;
  private violation: Error | undefined;

  constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (raw) => {
      const message = JSON.parse(raw.toString()) as ServerMessage;
      const errors = serverMessageErrors(message);
      if (errors) this.violation ??= new Error(`server message breaks the AsyncAPI contract: ${raw.toString()} ${errors}`);
      this.received.push(message);
      this.wake?.();
    });
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      this.wake?.();
    }));
  }

  /** The next message not yet read (optionally: the next one of this event, skipping others). */
  async next<E extends ServerEventName>(event?: E, timeoutMs = 5000): Promise<ServerMessageOf<E>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.violation) throw this.violation;
      while (this.cursor < this.received.length) {
        const message = this.received[this.cursor++];
        if (!event || message.event === event) return message as ServerMessageOf<E>;
      }
      if (this.ws.readyState === WebSocket.CLOSED) throw new Error(`socket closed while waiting for ${event ?? 'a message'}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${event ?? 'message'} within ${timeoutMs} ms; received ${JSON.stringify(this.received.map((m) => m.event))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Messages received and not yet read, all checked against the contract. */
  unread(): ServerMessage[] {
    if (this.violation) throw this.violation;
    return this.received.slice(this.cursor);
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  close(): Promise<{ code: number; reason: string }> {
    this.ws.close(1000);
    return this.closed;
  }
}

function open(wsUrl: string, token: string, options: ConnectOptions): WebSocket {
  const query = options.via === 'query';
  const url = query ? `${wsUrl}?token=${encodeURIComponent(token)}` : wsUrl;
  const protocols = query ? ['convene'] : ['convene', `token.${token}`];
  return new WebSocket(url, protocols, options.origin ? { origin: options.origin } : {});
}

/** Connects and resolves once open; the first message (the snapshot) is left for the test to read. */
export function connect(wsUrl: string, token: string, options: ConnectOptions = {}): Promise<TestSocket> {
  const ws = open(wsUrl, token, options);
  const socket = new TestSocket(ws);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(socket));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused with ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

/** Connects expecting the upgrade to be refused; resolves with the HTTP status and the error envelope. */
export function connectRefused(wsUrl: string, token: string, options: ConnectOptions = {}): Promise<Refusal> {
  const ws = open(wsUrl, token, options);
  return new Promise((resolve, reject) => {
    ws.once('open', () => {
      ws.close();
      reject(new Error('the upgrade was accepted'));
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(body) }));
    });
    ws.once('error', (err) => {
      if (!/Unexpected server response/.test(err.message)) reject(err);
    });
  });
}
