import { BenchOptionError, benchPlan } from '../../bench/plan';

describe('bench/plan: what a run measures, from its command line', () => {
  it('a full run: both servers, the spec’s windows, fleets up to 10,000, a soak', () => {
    const plan = benchPlan([]);
    expect(plan.mode).toBe('full');
    expect(plan.servers).toEqual(['stock', 'embedded']);
    expect(plan.fleet.agentCounts).toEqual([1, 10, 100, 1000, 10_000]);
    // The stock server's fleet: its largest up to 1,000 (the idle cost at scale on both servers).
    expect(plan.fleet.stockAgentCounts).toEqual([1000]);
    expect(plan.liveChat).toMatchObject({ windowMs: 60_000, cadenceMs: 6000 });
    expect(plan.sendBudget).toMatchObject({ windowMs: 60_000, limit: 12 });
    expect(plan.throughput).toMatchObject({ agents: 300, rates: [10, 20, 30, 40] });
    expect(plan.soak.messages).toBe(2000);
    expect(plan.fleet.heapMb).toBeUndefined();
  });

  it('--quick scales down: fleets to 100, a tenth of the windows, no soak', () => {
    const plan = benchPlan(['--quick']);
    expect(plan.mode).toBe('quick');
    expect(plan.fleet.agentCounts).toEqual([1, 10, 100]);
    expect(plan.fleet.stockAgentCounts).toEqual([100]);
    expect(plan.liveChat).toMatchObject({ windowMs: 6000, cadenceMs: 600 });
    expect(plan.sendBudget.windowMs).toBe(6000);
    expect(plan.soak.messages).toBe(0);
    expect(plan.throughput.agents).toBe(300);
  });

  it('takes the fleet’s counts, heap and cache, the servers and the soak', () => {
    const plan = benchPlan([
      '--fleet',
      '1,10000',
      '--fleet-heap',
      '768',
      '--fleet-cache',
      '200',
      '--servers',
      'embedded',
      '--soak',
      '500',
    ]);
    expect(plan.fleet).toMatchObject({
      agentCounts: [1, 10_000],
      stockAgentCounts: [1],
      heapMb: 768,
      maxCachedWorkflows: 200,
    });
    expect(benchPlan(['--fleet', '10000']).fleet.stockAgentCounts).toEqual([]);
    expect(plan.servers).toEqual(['embedded']);
    expect(plan.soak.messages).toBe(500);
    expect(benchPlan(['--quick', '--soak', '0']).soak.messages).toBe(0);
  });

  it('--only tracing: that part alone, on the servers asked for; tracing’s runs at each scale', () => {
    expect(benchPlan([]).only).toBeUndefined();
    expect(benchPlan([]).tracing).toEqual({ messages: 50, spacingMs: 2000, rounds: 2 });
    const plan = benchPlan(['--only', 'tracing', '--servers', 'embedded', '--quick']);
    expect(plan).toMatchObject({ only: 'tracing', servers: ['embedded'], mode: 'quick' });
    expect(plan.tracing).toEqual({ messages: 12, spacingMs: 2000, rounds: 1 });
    expect(benchPlan(['--only', 'tracing', '--tracing-rounds', '4']).tracing.rounds).toBe(4);
  });

  it.each([
    [['--only', 'fleet'], /--only takes tracing, not "fleet"/],
    [['--only'], /--only needs a value/],
    [['--tracing-rounds', '0'], /--tracing-rounds takes whole numbers ≥ 1, not "0"/],
    [['--fast'], /unknown option --fast/],
    [['--fleet'], /--fleet needs a value/],
    [['--fleet', '--quick'], /--fleet needs a value/],
    [['--fleet', '10,ten'], /--fleet takes whole numbers ≥ 1, not "ten"/],
    [['--fleet', '0'], /not "0"/],
    [['--fleet-heap', '12'], /--fleet-heap takes whole numbers ≥ 64/],
    [['--servers', 'cloud'], /--servers takes stock and\/or embedded, not "cloud"/],
    [['--soak', '-1'], /--soak/],
  ])('refuses %j with a clear error', (argv, message) => {
    expect(() => benchPlan(argv)).toThrow(BenchOptionError);
    expect(() => benchPlan(argv)).toThrow(message);
  });
});
