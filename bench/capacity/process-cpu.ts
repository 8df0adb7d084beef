import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`, 100 on Linux). */
const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

interface ProcStat {
  ppid: number;
  /** utime + stime, in ticks. */
  own: number;
  /** cutime + cstime: children that exited and were waited for, in ticks. */
  reaped: number;
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // After the name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
  return {
    ppid: Number(fields[1]),
    own: Number(fields[11]) + Number(fields[12]),
    reaped: Number(fields[13]) + Number(fields[14]),
  };
}

/**
 * CPU seconds (user + system) a server process and its children have used so
 * far: the process itself, its live children, and the children it already
 * reaped. For a PostgreSQL postmaster that is every backend and background
 * process, including connections that closed since the last reading.
 */
export function serverCpuSeconds(pid: number): number {
  const root = readStat(pid);
  if (root === null) throw new Error(`no process ${pid}`);
  let ticks = root.own + root.reaped;
  for (const entry of readdirSync('/proc')) {
    const child = /^\d+$/.test(entry) ? readStat(Number(entry)) : null;
    if (child !== null && child.ppid === pid) ticks += child.own;
  }
  return ticks / TICKS_PER_SECOND;
}

/** This process's CPU seconds (user + system) so far. */
export function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}
