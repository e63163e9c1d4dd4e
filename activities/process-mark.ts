/**
 * Which process this is, in a form another process on the same machine can check for life: the
 * boot, the PID namespace, the PID and the process's start time (so that a PID used again by a
 * later process is not taken for the first). Linux only (read from /proc); elsewhere there is no
 * mark, and whoever needs one assumes nothing.
 */
import { readFileSync, readlinkSync } from 'node:fs';

export interface ProcessMark {
  /** The kernel's boot id: a PID means nothing across boots. */
  boot: string;
  /** The PID namespace: a PID means nothing across namespaces (containers). */
  pidNs: string;
  pid: number;
  /** Start time in clock ticks since boot (/proc/<pid>/stat, field 22). */
  start: string;
}

/** This process's mark, or undefined where /proc does not tell it. */
export function ownMark(): ProcessMark | undefined {
  try {
    const start = startOf(process.pid);
    if (start === undefined) return undefined;
    return {
      boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
      pidNs: readlinkSync('/proc/self/ns/pid'),
      pid: process.pid,
      start,
    };
  } catch {
    return undefined;
  }
}

/** The start time of process `pid` as /proc says it, or undefined when there is no such process. */
export function startOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count after its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

/** Whether `mark` is `me`. */
export function sameProcess(mark: ProcessMark, me: ProcessMark): boolean {
  return mark.boot === me.boot && mark.pidNs === me.pidNs && mark.pid === me.pid && mark.start === me.start;
}

/**
 * Whether the process of `mark` has certainly ended, as seen from `me`: same boot and namespace,
 * and its PID is gone or now names a process started at another time. Another boot or namespace:
 * not known (false).
 */
export function certainlyEnded(
  mark: ProcessMark,
  me: ProcessMark,
  startOfPid: (pid: number) => string | undefined = startOf,
): boolean {
  if (mark.boot !== me.boot || mark.pidNs !== me.pidNs) return false;
  return startOfPid(mark.pid) !== mark.start;
}
