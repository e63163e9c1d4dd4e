/**
 * The target rows of the report (bench/targets.ts) and its generated tables, from results
 * objects built here: a met target says yes, a missed one no, and a part that did not run,
 * failed, or ran scaled down where the target is stated at the spec's scale is "not measured".
 */
import { HOPS } from '../../bench/breakdown';
import type { CostRow } from '../../bench/cost';
import type { FleetResult, FleetRow } from '../../bench/fleet';
import type { LatencyResult } from '../../bench/latency';
import type { LiveChatResult } from '../../bench/live-chat';
import { percentiles } from '../../bench/percentiles';
import { figuresMarkdown, tracingMarkdown } from '../../bench/report';
import type { ServerResults } from '../../bench/run-results';
import type { BurstFigures, SendBudgetResult } from '../../bench/send-budget';
import type { StretchCost } from '../../bench/server-cost';
import {
  targetRows,
  tracingTargetRows,
  type TargetInput,
  type TargetRow,
  type TracingInput,
} from '../../bench/targets';
import type { RateStep, ThroughputResult } from '../../bench/throughput';
import type { TracingResult, TracingSide } from '../../bench/tracing-cost';

const p = (ms: number) => percentiles([ms]);

function latency(amsflowMs: number, plainMs: number): LatencyResult {
  const added = amsflowMs - plainMs;
  return {
    messages: 1,
    spacingMs: 2000,
    amsflow: p(amsflowMs),
    plain: p(plainMs),
    addedMs: { p50: added, p95: added, p99: added },
    ratio: { p50: 1, p95: 1, p99: 1 },
    status429: { amsflow: 0, plain: 0 },
    breakdown: { matched: 1, steps: Object.fromEntries(HOPS.map((h) => [h, p(3)])) as never },
    samples: { amsflow: [amsflowMs], plain: [plainMs] },
  };
}

const step = (perSecond: number, p99Ms: number, answered = 10): RateStep => ({
  perSecond,
  written: 10,
  answered,
  p50Ms: p99Ms / 2,
  p99Ms,
  workerCores: 0.5,
  serverCores: 0.5,
  simulatorCores: 0.1,
  cpuMsPerMessage: 10,
});

const ladder = (steps: RateStep[], best: number | null): ThroughputResult => ({
  agents: 300,
  secondsPerStep: 25,
  steps,
  bestPerSecond: best,
});

const live = (windowMs: number, p95Ms: number, status429 = 0): LiveChatResult => ({
  scale: 'x',
  messages: 24,
  windowMs,
  cadenceMs: windowMs / 10,
  pickup: { ...p(p95Ms), p95Ms },
  bothReplies: p(p95Ms),
  repliesSent: 48,
  status429: { updates: status429, messages: 0, total: status429 },
  timeline: { polls: [], sends: [], limits: { updates: 15, messages: 12 }, windowMs },
});

function server(
  kind: 'stock' | 'embedded',
  o: {
    added: number;
    at10: number;
    best: number;
    kills: number[];
    tsNodeKills?: number[];
    live: LiveChatResult;
  },
): ServerResults {
  return {
    kind,
    server: kind,
    latency: latency(5 + o.added, 5),
    throughput: ladder([step(10, o.at10), step(20, 500), step(30, 600), step(40, 2000)], o.best),
    liveChat: o.live,
    recovery: {
      runs: (o.tsNodeKills ?? o.kills).map((k) => ({
        killToReplyMs: k,
        workerStartMs: 2500,
        runningToReplyMs: 500,
      })),
      workflowBundle: true,
    },
    recoveryCompiled: {
      runs: o.kills.map((k) => ({ killToReplyMs: k, workerStartMs: 1000, runningToReplyMs: 500 })),
      workflowBundle: true,
      compiled: true,
    },
  };
}

const counts = (tasks: number, events: number, actions: number) => ({
  events,
  workflowTasks: tasks,
  activityTasks: 2,
  timers: 0,
  signals: 0,
  childWorkflows: 1,
  actions,
});

const cost = (tasks: number): CostRow[] => [
  { scenario: 'echo', units: 6, perUnit: counts(tasks, 26, 3) },
  { scenario: 'signupStep', units: 6, perUnit: counts(6.3, 32.7, 4) },
];

const burst = (sustainedRatio: number, repliesAfterFirst?: number): BurstFigures => ({
  withStatuses: repliesAfterFirst !== undefined,
  pickupMs: 100,
  offsetsMs: [0],
  latenessMs: { p50: 0, max: 0 },
  firstWindowOutMs: 500,
  sustainedRatio,
  status429: { messages: 0, statuses: 0, typing: 0, updates: 0 },
  statusRequests: { markRead: 3, typing: 3 },
  ...(repliesAfterFirst === undefined ? {} : { reminders: { due: 3, offsetsMs: [1], repliesAfterFirst } }),
  agentHistory: { activities: { pollUpdates: 3, sendMessage: 40 }, workflowTasks: 50 },
  accepted: 40,
});

function budget(windowMs: number, delayP50: number, after: number, ratio = 0.995): SendBudgetResult {
  return {
    sends: 40,
    windowMs,
    limit: 12,
    statusEveryMs: 10_000,
    secondWaveAfterMs: windowMs / 2,
    reminders: 3,
    optimumMs: [0],
    baseline: burst(ratio),
    withStatuses: burst(ratio, after),
    statusDelayMs: { p50: delayP50, max: delayP50 },
    secondWaveDelayMs: { p50: delayP50, max: delayP50 },
  };
}

/** An idle stretch's cost as the server counted it (bench/server-cost.ts). */
function idleCost(writes: number, actions: number): StretchCost {
  return {
    writesPerAgentMinute: writes,
    actionsPerAgentMinute: actions,
    actionsPerAgentHour: actions * 60,
    cloudUsdPerAgentMonth: +((actions * 60 * 730.5 * 50) / 1e6).toFixed(2),
    writesByOperation: {},
    actionsByType: {},
  };
}

function fleetRow(
  agents: number,
  p99Ms: number,
  peak: number,
  pollingMs: number,
  server = idleCost(0.5, 0.5),
): FleetRow {
  return {
    agents,
    workerStartMs: 1000,
    pollingMs,
    workerRssMb: peak - 10,
    serverRssMb: 200,
    idle: { workerCores: 0.01, serverCores: 0.01, eventsPerAgentMinute: 0, server },
    lowRate: { perSecond: 1, written: 30, answered: 30, latency: p(p99Ms) },
    workerRssAfterMb: peak - 5,
    workerRssPeakMb: peak,
  };
}

const fleet = (rows: FleetRow[], failed: FleetResult['failed'] = []): FleetResult => ({
  rows,
  failed,
  worker: {},
});

/** A full run in which every target is met. */
function allMet(): TargetInput {
  return {
    mode: 'full',
    servers: {
      stock: {
        ...server('stock', {
          added: 30,
          at10: 800,
          best: 10,
          kills: [1500, 1800, 4000],
          live: live(60_000, 1500),
        }),
        fleet: fleet([fleetRow(1000, 300, 500, 30_000, idleCost(0.8, 0.6))]),
      },
      embedded: server('embedded', {
        added: 20,
        at10: 300,
        best: 30,
        kills: [1000, 1200, 3000],
        live: live(60_000, 1900),
      }),
    },
    cost: cost(5),
    sendBudget: budget(60_000, 10, 0),
    fleet: fleet([fleetRow(1, 200, 300, 3000), fleetRow(10_000, 390, 1000, 55_000)]),
    soak: {
      messages: 2000,
      answered: 2000,
      perSecond: 10,
      longestHistory: 4000,
      runs: 11,
      carriedBytes: 1000,
      largestHistoryBytes: 2_000_000,
      p99Ms: 300,
    },
    plainThroughput: ladder([step(10, 20), step(20, 20), step(30, 20), step(40, 20)], 40),
  };
}

const metOf = (rows: TargetRow[], target: RegExp, server?: string) =>
  rows
    .filter((r) => target.test(r.target) && (server === undefined || r.server === server))
    .map((r) => r.met);

describe('bench/targets', () => {
  it('says yes to every target met, beside the plain loop where there is one', () => {
    const rows = targetRows(allMet());
    const other = rows.filter((r) => r.met !== 'yes').map((r) => [r.target, r.met]);
    expect(other).toEqual([
      ['cost of a signup step, an approval, a reminder (published)', 'published'],
      ['reminders before typing', 'not measured'],
    ]);
    const stockLatency = rows.find((r) => r.target.startsWith('added latency') && r.server === 'stock')!;
    expect(stockLatency.target).toMatch(/≤ 40 ms/);
    expect(stockLatency.amsflow).toMatch(/^\+30 ms/);
    expect(stockLatency.plain).toMatch(/p50 5 ms/);
    expect(rows.find((r) => r.target.includes('≥ 30 msg/s'))!.plain).toBe('40 msg/s held');
  });

  it('says no to each target missed', () => {
    const r = allMet();
    r.cost = cost(7);
    r.servers.stock = server('stock', {
      added: 41,
      at10: 1500,
      best: 0,
      kills: [2500, 6000],
      live: live(60_000, 3600),
    });
    r.servers.embedded = server('embedded', {
      added: 26,
      at10: 300,
      best: 20,
      kills: [1000, 1000],
      live: live(60_000, 1000, 2),
    });
    r.sendBudget = budget(60_000, 51, 20, 0.95);
    r.fleet = fleet([
      fleetRow(1, 200, 300, 3000),
      // The last fleet the server counted is judged: 21.8 writes and 15 actions an idle agent-minute.
      fleetRow(10_000, 401, 1100, 61_000, idleCost(21.8, 15)),
    ]);
    const rows = targetRows(r);
    // The stock server's fleet was not measured in this run (servers replaced above): not a yes.
    expect(metOf(rows, /^an idle agent/, 'embedded')).toEqual(['no']);
    expect(metOf(rows, /^an idle agent/, 'stock')).toEqual(['not measured']);
    expect(rows.find((x) => /^an idle agent/.test(x.target))?.amsflow).toBe(
      '21.8 writes, 15 actions (10000 agents; $32.87 an agent-month on Cloud)',
    );
    expect(metOf(rows, /^cost of an echo/)).toEqual(['no']);
    expect(metOf(rows, /^added latency/)).toEqual(['no', 'no']);
    expect(metOf(rows, /^300 agents/)).toEqual(['no', 'no']);
    expect(metOf(rows, /^10,000 agents/)).toEqual(['no', 'no', 'no']);
    expect(metOf(rows, /replies no later|replies before reminders|sustained/)).toEqual(['no', 'no', 'no']);
    expect(metOf(rows, /^live chat/)).toEqual(['no', 'no']);
    expect(metOf(rows, /^recovery/, 'stock')).toEqual(['no', 'no']);
    expect(metOf(rows, /^recovery/, 'embedded')).toEqual(['yes', 'yes']);
  });

  it('judges recovery with each way of starting the worker on its own, and one not measured as such', () => {
    const r = allMet();
    r.servers.embedded = server('embedded', {
      added: 20,
      at10: 300,
      best: 30,
      kills: [1400, 1500, 1600],
      tsNodeKills: [2900, 3000, 3100],
      live: live(60_000, 1900),
    });
    const rows = targetRows(r).filter((row) => /^recovery/.test(row.target) && row.server === 'embedded');
    expect(rows.map((row) => [row.target.match(/\((.*?)\)/)![1], row.amsflow, row.met])).toEqual([
      ['compiled worker, as the image runs it', 'p50 1500 ms, max 1600 ms (3 kills)', 'yes'],
      ['worker under ts-node, as npm start runs it', 'p50 3000 ms, max 3100 ms (3 kills)', 'no'],
    ]);
    // Results written before the compiled worker was measured.
    delete r.servers.embedded.recoveryCompiled;
    expect(metOf(targetRows(r), /^recovery/, 'embedded')).toEqual(['not measured', 'no']);
  });

  it('a fleet of 10,000 that could not be measured is a miss, with its error', () => {
    const r = allMet();
    r.fleet = fleet([fleetRow(1, 200, 300, 3000)], [{ agents: 10_000, error: 'worker ran out of heap' }]);
    const rows = targetRows(r).filter((x) => x.target.startsWith('10,000 agents'));
    expect(rows.map((x) => x.met)).toEqual(['no', 'no', 'no']);
    expect(rows[0].amsflow).toBe('failed: worker ran out of heap');
    const md = figuresMarkdown(
      { ...r, at: 'now', node: 'v20', command: 'x', machine: { cpus: 2, model: 'cpu', memoryGb: 24 } },
      [],
      '/b/r.json',
      '/b',
    );
    expect(md).toContain('- 10000 agents: not measured (worker ran out of heap)');
  });

  it('a step not reached is no: the stock ladder stopped below 10 msg/s', () => {
    const r = allMet();
    const stock = r.servers.stock!;
    r.servers.stock = { ...stock, throughput: ladder([], null) };
    expect(metOf(targetRows(r), /at 10 msg\/s/)).toEqual(['no']);
  });

  it('a ladder over fewer than the target’s 300 agents says nothing of it', () => {
    const r = allMet();
    for (const kind of ['stock', 'embedded'] as const)
      r.servers[kind] = { ...r.servers[kind]!, throughput: { ...ladder([step(10, 100)], 40), agents: 10 } };
    expect(metOf(targetRows(r), /^300 agents/)).toEqual(['not measured', 'not measured']);
  });

  it('a scaled, failed or missing part is not measured, never yes', () => {
    const r = allMet();
    r.mode = 'quick';
    r.servers.stock = { ...r.servers.stock!, liveChat: live(6000, 100), latency: { error: 'boom' } };
    delete r.servers.embedded;
    r.sendBudget = budget(6000, 0, 0, 1);
    r.fleet = fleet([fleetRow(1, 200, 300, 3000), fleetRow(100, 200, 400, 5000)]);
    r.cost = { error: 'no server' };
    const rows = targetRows(r);
    expect(metOf(rows, /^live chat/)).toEqual(['not measured', 'not measured']);
    expect(metOf(rows, /^added latency/)).toEqual(['not measured', 'not measured']);
    expect(metOf(rows, /sustained/)).toEqual(['not measured']);
    expect(metOf(rows, /^10,000 agents/)).toEqual(['not measured', 'not measured', 'not measured']);
    expect(metOf(rows, /^cost/)).toEqual(['not measured', 'not measured']);
    expect(metOf(rows, /replies no later/)).toEqual(['yes']);
  });

  it('the generated section holds the targets, the cost table, the hops and the ladders', () => {
    const r = {
      ...allMet(),
      at: '2026-11-28T00:00:00Z',
      node: 'v20',
      command: 'npm run bench',
      machine: { cpus: 2, model: 'cpu', memoryGb: 24 },
    };
    r.cost = cost(7);
    const md = figuresMarkdown(
      r,
      [{ path: 'results/x/latency-cdf.svg', title: 'CDF' }],
      '/b/results/x.json',
      '/b',
    );
    expect(md).toContain('`results/x.json`');
    expect(md).toMatch(
      /\| cost of an echo: .* \| either \| 7 tasks, 26 events, 3 actions \| – \| \*\*no\*\* \|/,
    );
    expect(md).toMatch(/\| echo \| 6 \| 26 \| 7 \| 2 \| 0 \| 0 \| 1 \| 3 \|/);
    expect(md).toContain('| child started → handler completed | 3 / 3 | 3 / 3 |');
    expect(md).toMatch(/\| plain loop \| 40 \| 10\/10 \|/);
    expect(md).toContain('![CDF](results/x/latency-cdf.svg)');
  });
});

/** One side of tracing's figures: amsflow's p50 `p50` beside a plain loop at 3 ms. */
function tracingSide(p50: number, o: Partial<TracingSide> = {}): TracingSide {
  return {
    runs: 2,
    echoes: 100,
    amsflowMs: { p50, p95: p50 + 40 },
    plainMs: { p50: 3, p95: 3 },
    addedMs: { p50: p50 - 3, p95: p50 + 37 },
    ratio: { p50: +(p50 / 3).toFixed(2), p95: 1 },
    runAddedP50Ms: [p50 - 4, p50 - 2],
    workerCpuMsPerEcho: 60,
    workerRssMb: 420,
    spansPerEcho: 0,
    spansByName: {},
    otlpBytesPerEcho: 0,
    otlpRequests: 0,
    otelSdkModules: 0,
    ...o,
  };
}

function tracing(offP50: number, onP50: number, offModules: number | null = 0): TracingResult {
  const off = tracingSide(offP50, { otelSdkModules: offModules });
  const on = tracingSide(onP50, {
    workerCpuMsPerEcho: 70,
    spansPerEcho: 3,
    spansByName: { 'RunActivity:pollUpdates': 1, 'RunWorkflow:onMessage': 1, 'RunActivity:sendMessage': 1 },
    otlpBytesPerEcho: 4300,
    otlpRequests: 40,
    otelSdkModules: 210,
  });
  return {
    messages: 50,
    spacingMs: 2000,
    order: ['off', 'on', 'on', 'off'],
    off,
    on,
    costMs: { p50: onP50 - offP50, p95: onP50 - offP50 },
    costSeMs: { p50: 2.5, p95: NaN },
    cpuMsPerEcho: 10,
    cpuSeMsPerEcho: 1.5,
    runs: [],
  };
}

describe('bench/targets: tracing’s cost (issue 38)', () => {
  const rows = (r: TracingInput) => tracingTargetRows(r).map((x) => [x.server, x.met]);

  it('on may add 5 ms to the added latency p50, or 10 % of it where that is more; off loads and sends nothing', () => {
    // embedded: off +47 ms, on +52 ms (5 ms, the budget); stock: off +97 ms, on +106 ms (9 ≤ 9.7).
    const r: TracingInput = {
      servers: { stock: { tracing: tracing(100, 109) }, embedded: { tracing: tracing(50, 55) } },
    };
    expect(rows(r)).toEqual([
      ['stock', 'yes'],
      ['stock', 'yes'],
      ['embedded', 'yes'],
      ['embedded', 'yes'],
    ]);
    const row = tracingTargetRows(r)[2];
    expect(row.amsflow).toBe('+5 ± 2.5 ms (off +47 ms, on +52 ms; allowed 5 ms)');
    expect(row.plain).toBe('p50 3 ms (off runs), 3 ms (on runs)');
    expect(tracingTargetRows(r)[3].amsflow).toBe('0 SDK modules, 0 exports (on: 210 modules)');
  });

  it('says no past the budget or when off loaded the SDK; not measured when a side or the probe is missing', () => {
    const r: TracingInput = {
      servers: { stock: { tracing: tracing(100, 110, 12) }, embedded: { tracing: tracing(50, 56, null) } },
    };
    expect(rows(r)).toEqual([
      ['stock', 'no'],
      ['stock', 'no'],
      ['embedded', 'no'],
      ['embedded', 'not measured'],
    ]);
    expect(rows({ servers: { stock: { tracing: { error: 'boom' } } } })).toEqual([
      ['stock', 'not measured'],
      ['stock', 'not measured'],
      ['embedded', 'not measured'],
      ['embedded', 'not measured'],
    ]);
  });

  it('its section: the run, the targets, off, on and on − off per server, and a failed server', () => {
    const md = tracingMarkdown(
      {
        at: '2026-12-06T00:00:00Z',
        node: 'v20',
        mode: 'full',
        command: 'npm run bench -- --only tracing',
        machine: { cpus: 2, model: 'cpu', memoryGb: 24 },
        servers: {
          stock: {
            kind: 'stock',
            server: 'stock: the CLI',
            latency: { error: 'no server' },
            tracing: { error: 'no server' },
          },
          embedded: {
            kind: 'embedded',
            server: 'embedded: ours',
            latency: latency(48, 3),
            tracing: tracing(50, 53),
          },
        },
      },
      '/b/results/2026-12-06-tracing.json',
      '/b',
    );
    expect(md).toContain('`npm run bench -- --only tracing` (full run)');
    expect(md).toContain('`results/2026-12-06-tracing.json`');
    expect(md).toContain('  - embedded: ours');
    expect(md).toMatch(
      /\| tracing on adds ≤ 5 ms or ≤ 10 % .* \| embedded \| \+3 ± 2.5 ms .* \| \*\*yes\*\* \|/,
    );
    expect(md).toContain(
      '| embedded | off, in process (latency section) | 1 × 1 (1 answered) | 48 / 48 | 3 / 3 | 45 / 45 | 1 / 1 |  | – | – | – | – |',
    );
    expect(md).toContain(
      '| embedded | off | 2 × 50 (100 answered) | 50 / 90 | 3 / 3 | 47 / 87 | 16.67 / 1 | 46, 48 | 60 | 0 | 0 | 0 |',
    );
    expect(md).toContain(
      '| embedded | on | 2 × 50 (100 answered) | 53 / 93 | 3 / 3 | 50 / 90 | 17.67 / 1 | 49, 51 | 70 | 3 | 4300 | 210 |',
    );
    expect(md).toContain('| embedded | on − off |  |  |  | +3 ± 2.5 / +3 |  |  | +10 ± 1.5 |  |  |  |');
    expect(md).toContain(
      '- embedded, tracing on: `RunActivity:pollUpdates` 1, `RunWorkflow:onMessage` 1, `RunActivity:sendMessage` 1',
    );
    expect(md).toContain('- stock: not measured (no server)');
  });
});
