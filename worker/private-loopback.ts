/**
 * A loopback address for a listener that only amsflow itself talks to, for the servers amsflow
 * runs but cannot make check a request's Host and Origin (core/local-request.ts): the embedded
 * Temporal UI, which amsflow's checked proxy fronts (worker/checked-proxy.ts).
 *
 * Why an address of its own: a page on a DNS name rebound to a loopback address reaches whatever
 * listens on the port of its own URL there, as if same-origin. On 127.0.0.1 such a page finds a
 * listener by trying ports. Linux answers on all of 127.0.0.0/8, so there the address is one of
 * 16 million picked at random each start: a rebinding page would have to guess it and the port.
 * Where only 127.0.0.1 is configured (macOS), it is 127.0.0.1 (docs/SECURITY.md says what that
 * leaves open).
 */
import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

/** The address everyone knows. */
export const LOOPBACK = '127.0.0.1';

/** Addresses tried before falling back to {@link LOOPBACK}. */
const TRIES = 5;

/** Whether this machine accepts a listener on `host` now. */
function listenable(host: string): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', () => done(false));
    probe.listen(0, host, () => probe.close(() => done(true)));
  });
}

/**
 * A random 127.a.b.c that takes listeners, never in 127.0.0.0/24 (127.0.0.1, 127.0.0.53 of
 * systemd-resolved: the addresses local tools know); {@link LOOPBACK} where none does.
 */
export async function privateLoopbackHost(platform: NodeJS.Platform = process.platform): Promise<string> {
  if (platform !== 'linux') return LOOPBACK;
  for (let i = 0; i < TRIES; i++) {
    const host = `127.${1 + randomInt(254)}.${randomInt(256)}.${1 + randomInt(254)}`;
    if (await listenable(host)) return host;
  }
  return LOOPBACK;
}
