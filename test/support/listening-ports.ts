/**
 * The TCP ports a process listens on: its socket inodes (`/proc/<pid>/fd`) matched against the
 * listening sockets of `/proc/net/tcp` (and `tcp6`). Linux only.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** 127.0.0.1 as `/proc/net/tcp` writes it (little-endian hex). */
const LOOPBACK_HEX = '0100007F';
const LISTEN = '0A';

/** A listening socket: its address as `/proc/net/tcp{,6}` writes it (hex), and its port. */
export interface Listener {
  address: string;
  port: number;
}

/** Every socket `pid` listens on, on any address, IPv4 and IPv6. */
export function listeners(pid: number): Listener[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // Closed meanwhile.
    }
  }
  const found: Listener[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      const [address, port] = (local ?? '').split(':');
      if (state === LISTEN && inodes.has(inode)) found.push({ address, port: parseInt(port, 16) });
    }
  }
  return found;
}

/** The ports `pid` listens on at 127.0.0.1, as a page scanning loopback would find them. */
export function loopbackListeners(pid: number): number[] {
  return listeners(pid)
    .filter((l) => l.address === LOOPBACK_HEX)
    .map((l) => l.port);
}
