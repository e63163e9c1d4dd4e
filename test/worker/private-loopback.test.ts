/**
 * The private loopback address of the listeners only amsflow talks to (worker/private-loopback.ts:
 * the embedded Temporal UI behind the checked proxy): a random 127.x.y.z each start on Linux.
 */
import { LOOPBACK, privateLoopbackHost } from '../../worker/private-loopback';

const linuxIt = process.platform === 'linux' ? it : it.skip;

describe('privateLoopbackHost', () => {
  linuxIt('picks a random 127.x.y.z outside 127.0.0.0/24 that takes listeners', async () => {
    const hosts = await Promise.all(Array.from({ length: 5 }, () => privateLoopbackHost()));
    expect(new Set(hosts).size).toBe(5);
    for (const host of hosts) expect(host).toMatch(/^127\.([1-9]\d{0,2})\.\d{1,3}\.\d{1,3}$/);
  });

  it('is 127.0.0.1 where the system answers on that address alone (macOS)', async () => {
    expect(await privateLoopbackHost('darwin')).toBe(LOOPBACK);
  });
});
