// CPU time of this process and everything it started (the stack of bench/stack.ts), grouped by role, from /proc (Linux
// only; elsewhere the snapshot is empty). Two snapshots give the CPU seconds each role used between them: which part of
// the stack a burst saturates.
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on every Linux architecture Node runs on). */
const TICKS_PER_SECOND = 100;

export type CpuSnapshot = Map<string, number>;

/** CPU seconds used so far per role (api, worker, temporal, postgres, seaweedfs, bench, other), descendants included. */
export function cpuSnapshot(): CpuSnapshot {
  const processes = new Map<number, { ppid: number; ticks: number; role: string }>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return new Map();
  }
  for (const name of pids) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces: the fields after it are split on spaces.
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[0] is state (field 3): utime is field 14, stime 15, cutime 16, cstime 17 (waited-for children, so the
      // time of a PostgreSQL backend that has exited is still counted, once).
      const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ');
      processes.set(Number(name), { ppid: Number(fields[1]), ticks, role: roleOf(comm, args) });
    } catch {
      // gone meanwhile
    }
  }
  const ours = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
      if (p === process.pid) return true;
      p = processes.get(p)?.ppid ?? 0;
    }
    return false;
  };
  const snapshot: CpuSnapshot = new Map();
  for (const [pid, p] of processes) {
    if (!ours(pid)) continue;
    // A child's role is its own when it has one, else its nearest ancestor's (postgres backends, setpriv wrappers).
    let role = p.role;
    for (let q = processes.get(p.ppid); role === 'other' && q; q = processes.get(q.ppid)) role = q.role;
    if (pid === process.pid) role = 'bench (media server, receiver)';
    snapshot.set(role, (snapshot.get(role) ?? 0) + p.ticks / TICKS_PER_SECOND);
  }
  return snapshot;
}

function roleOf(comm: string, args: string): string {
  if (/main\.ts api\b/.test(args)) return 'api';
  if (/main\.ts worker\b/.test(args)) return 'worker';
  if (comm.startsWith('postgres') || /\bpostgres\b/.test(args.split(' ')[0] ?? '')) return 'postgres';
  if (/temporal/.test(comm) || /\btemporal\b.*server start-dev/.test(args)) return 'temporal';
  if (comm === 'weed' || /\bweed\b/.test(args.split(' ')[0] ?? '')) return 'seaweedfs';
  return 'other';
}

/** CPU seconds per role between two snapshots, largest first. */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): Array<[string, number]> {
  return [...after.entries()].map(([role, s]): [string, number] => [role, s - (before.get(role) ?? 0)]).sort((a, b) => b[1] - a[1]);
}
