// `npm run dev` shows the API's and worker's JSON log lines (pino) as readable text: time, level, message, then the
// fields. Production keeps JSON (src/logger.ts); only this launcher formats, and DEV_LOG_FORMAT=json turns it off.
import pinoPretty from 'pino-pretty';

export type LineFormatter = (line: string) => string;

export function prettyLogLines(options: { colorize: boolean }): LineFormatter {
  const pretty = pinoPretty.prettyFactory({
    colorize: options.colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service',
    singleLine: true,
  });
  return (line) => {
    // Anything that is not a pino record (a stack trace, a library's own print) passes through untouched.
    if (!line.startsWith('{')) return line;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      return line;
    }
    if (typeof record !== 'object' || record === null || !('level' in record) || !('time' in record)) return line;
    return pretty(record).replace(/\n$/, '');
  };
}
