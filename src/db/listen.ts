import pg from 'pg';
import type { Logger } from '../logger.ts';

const RECONNECT_DELAY_MS = 1000;

/**
 * Runs `onChange` whenever a transaction that ran `pg_notify(channel, …)` commits, on a LISTEN connection of its own
 * that reconnects after a loss. A notification sent before the LISTEN took effect or while the connection was down is
 * lost, so `onChange` also runs each time the LISTEN is (re)established. Returns stop().
 */
export function onNotify(options: { databaseUrl: string; channel: string; logger: Logger; onChange: () => void }): () => Promise<void> {
  const { databaseUrl, channel, logger, onChange } = options;
  let client: pg.Client | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: databaseUrl });
    const lost = (err?: Error) => {
      if (client !== next) return;
      client = undefined;
      next.end().catch(() => {});
      if (stopped) return;
      logger.warn({ err, channel }, 'LISTEN connection lost; reconnecting');
      timer = setTimeout(() => void connect(), RECONNECT_DELAY_MS);
      timer.unref();
    };
    next.on('notification', (msg) => {
      if (msg.channel === channel) onChange();
    });
    next.on('error', lost);
    next.on('end', () => lost());
    client = next;
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
      onChange();
    } catch (err) {
      lost(err as Error);
    }
  };

  void connect();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    const last = client;
    client = undefined;
    await last?.end().catch(() => {});
  };
}
