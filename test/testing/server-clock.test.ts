import { ServerClock } from '../../testing/server-clock';

describe('ServerClock', () => {
  it('follows the server’s jumps and never goes back', async () => {
    let server = 1_000_000;
    const clock = await ServerClock.from(async () => server);
    const first = clock.now();
    expect(first).toBeGreaterThanOrEqual(1_000_000);
    server += 3 * 86_400_000; // the test server skipped three days
    await clock.sync();
    expect(clock.now()).toBeGreaterThanOrEqual(1_000_000 + 3 * 86_400_000);
    const later = clock.now();
    server -= 10_000; // a read that lags behind what was already shown
    await clock.sync();
    expect(clock.now()).toBeGreaterThanOrEqual(later);
  });
});
