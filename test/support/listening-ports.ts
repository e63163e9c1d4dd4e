/**
 * The TCP ports a process listens on at 127.0.0.1, as a page scanning loopback would find them:
 * its socket inodes (`/proc/<pid>/fd`) matched against the listening sockets of `/proc/net/tcp`.
 * Linux only.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** 127.0.0.1 as `/proc/net/tcp` writes it (little-endian hex). */
const LOOPBACK_HEX = '0100007F';
const LISTEN = '0A';

export function loopbackListeners(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // Closed meanwhile.
    }
  }
  const ports: number[] = [];
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
    const [address, port] = (local ?? '').split(':');
    if (address === LOOPBACK_HEX && state === LISTEN && inodes.has(inode)) ports.push(parseInt(port, 16));
  }
  return ports;
}
