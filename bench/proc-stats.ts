/**
 * CPU time and resident memory of a process, read from /proc (Linux): what one worker process
 * or the Temporal dev server costs, measured from outside it.
 */
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** User + system CPU time of `pid` so far, in ms (NaN where /proc cannot be read). */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** Resident set size of `pid`, in MB (NaN where /proc cannot be read). */
export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return +(kb / 1024).toFixed(1);
  } catch {
    return NaN;
  }
}

/** Peak resident set size of `pid` so far (VmHWM), in MB (NaN where /proc cannot be read). */
export function peakRssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
    return +(kb / 1024).toFixed(1);
  } catch {
    return NaN;
  }
}

/** CPU use of this process (the bench: its simulators and plain loops) between now and `stop()`. */
export function selfCpuMeter(): { stop(): { cpuMs: number; cores: number } } {
  const t0 = Date.now();
  const c0 = process.cpuUsage();
  return {
    stop() {
      const used = process.cpuUsage(c0);
      const ms = (used.user + used.system) / 1000;
      return { cpuMs: ms, cores: +(ms / Math.max(1, Date.now() - t0)).toFixed(2) };
    },
  };
}

/** CPU use of `pid` between now and `stop()`, as a share of one core (1 = one core busy). */
export function cpuMeter(pid: number): { stop(): { cpuMs: number; cores: number } } {
  const t0 = Date.now();
  const c0 = cpuMs(pid);
  return {
    stop() {
      const used = cpuMs(pid) - c0;
      return { cpuMs: used, cores: +(used / Math.max(1, Date.now() - t0)).toFixed(2) };
    },
  };
}
