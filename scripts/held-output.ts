// A child process whose output (stdout and stderr, in the order they came) is held back and handed over whole when it
// ends, so that several running at once (npm test's static checks beside the fuzzing, the fuzzer's two runs) each
// print in one piece and never mix their lines.
import { spawn, type SpawnOptions } from 'node:child_process';

export interface HeldRun {
  /** The exit code; null when the process could not start or was killed. */
  code: number | null;
  /** Everything it wrote, ending with a newline when not empty (an error starting it included). */
  output: string;
}

export function runHeldOutput(command: string, args: string[], options: Pick<SpawnOptions, 'cwd' | 'env'> = {}): Promise<HeldRun> {
  const chunks: Buffer[] = [];
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve) => {
    let settled = false;
    const done = (code: number | null, extra = '') => {
      if (settled) return;
      settled = true;
      let output = Buffer.concat(chunks).toString('utf8') + extra;
      if (output.length > 0 && !output.endsWith('\n')) output += '\n';
      resolve({ code, output });
    };
    child.on('error', (error) => done(null, `${error.message}\n`));
    child.on('close', (code) => done(code));
  });
}
