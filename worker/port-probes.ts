/**
 * Ports for the embedded server and the tests: choosing a free one, whether one is taken or open,
 * waiting for one to become free. Re-exported by worker/dev-server.ts.
 */
import { randomInt } from 'node:crypto';
import { createServer, Socket } from 'node:net';
import { PortInUseError } from './dev-server-errors';

/**
 * Ports handed out below the kernels' ephemeral ranges (Linux 32768–60999, macOS 49152–65535):
 * a port chosen there cannot be taken, between this call and its listen, as the source port of
 * an outgoing connection (which a chosen port from listen(0) can: a start then failed with
 * "port in use" under load).
 */
const CHOSEN_PORTS = { from: 20_000, to: 32_767 };

/** A TCP port that was free a moment ago on `host` (any free one if none of the range is). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = CHOSEN_PORTS.from + randomInt(CHOSEN_PORTS.to - CHOSEN_PORTS.from + 1);
    if (!(await portTaken(port, host))) return port;
  }
  return anyFreePort(host);
}

/** A free port on `host` other than `taken` (the ports of one server must differ; a retry's too). */
export async function freePortBesides(host: string, taken: (number | undefined)[]): Promise<number> {
  for (;;) {
    const port = await freePort(host);
    if (!taken.includes(port)) return port;
  }
}

function anyFreePort(host: string): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      srv.close(() =>
        typeof addr === 'object' && addr ? resolvePort(addr.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Whether host:port can be listened on now; only EADDRINUSE counts as taken. */
export function portTaken(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'EADDRINUSE'));
    probe.listen(port, host, () => probe.close(() => done(false)));
  });
}

/** Throws {@link PortInUseError} unless the port is free or becomes free within `waitMs`. */
export async function claimablePort(
  port: number,
  role: PortInUseError['role'],
  waitMs: number,
): Promise<void> {
  const deadline = Date.now() + waitMs;
  while (await portTaken(port)) {
    if (Date.now() >= deadline) throw new PortInUseError(port, role);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Whether something accepts a TCP connection on host:port within half a second. */
export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((done) => {
    const socket = new Socket();
    socket.setTimeout(500);
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
    socket.once('timeout', () => {
      socket.destroy();
      done(false);
    });
    socket.connect(port, host);
  });
}
