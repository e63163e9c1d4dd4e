import { startServingMonitor, unservedStalls, type Probe } from '../../chaos/serving-monitor';

const probe = (startedAt: number, ok: boolean, tookMs = 100): Probe => ({
  startedAt,
  endedAt: startedAt + tookMs,
  ok,
});

describe('unservedStalls', () => {
  it('makes each run of unanswered describes one stall, up to the next answered one', () => {
    const probes = [
      probe(0, true),
      probe(250, false, 1000),
      probe(1250, false, 1000),
      probe(2250, true),
      probe(2500, true),
      probe(2750, false, 1000),
      probe(3750, true),
    ];
    expect(unservedStalls('a', probes)).toEqual([
      { from: 250, to: 2250, agent: 'a' },
      { from: 2750, to: 3750, agent: 'a' },
    ]);
  });

  it('ends a run still unanswered at the end of its last describe, in any order given', () => {
    expect(unservedStalls('a', [probe(500, false, 1000), probe(0, true)])).toEqual([
      { from: 500, to: 1500, agent: 'a' },
    ]);
    expect(unservedStalls('a', [probe(0, true), probe(250, true)])).toEqual([]);
  });
});

/** Resolves once `done()` holds, checked every 5 ms; throws after 10 s. */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('condition not met within 10 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('startServingMonitor', () => {
  it("gives the stretch an agent's describes failed as its stall, and none to an agent always answered", async () => {
    let failing = false;
    const failures: number[] = [];
    const answeredAfter: number[] = [];
    const monitor = startServingMonitor(
      ['a', 'b'],
      async (agent, deadline) => {
        if (agent !== 'a') return;
        const startedAt = deadline - 1000;
        if (failing) {
          failures.push(startedAt);
          throw new Error('shard status unknown');
        }
        if (failures.length > 0) answeredAfter.push(startedAt);
      },
      { everyMs: 5, timeoutMs: 1000 },
    );
    failing = true;
    await until(() => failures.length >= 3);
    failing = false;
    await until(() => answeredAfter.length >= 2);
    const stalls = await monitor.stop();
    expect(stalls).toEqual([{ agent: 'a', from: failures[0], to: answeredAfter[0] }]);
  });

  it('counts a describe answered after its deadline as unanswered', async () => {
    let calls = 0;
    const monitor = startServingMonitor(
      ['a'],
      async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 30));
      },
      { everyMs: 5, timeoutMs: 10 },
    );
    await until(() => calls >= 3);
    const stalls = await monitor.stop();
    expect(stalls).toHaveLength(1);
    expect(stalls[0].to - stalls[0].from).toBeGreaterThanOrEqual(60);
  });
});
