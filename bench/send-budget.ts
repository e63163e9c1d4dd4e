/**
 * Send budget (issue 12, point 3): `sends` messages requested at once by one handler (the
 * `burst` command of bench/workflows.ts), with the spec's limit scaled down (`limit` per
 * `windowMs`, e.g. 12 per 6000 ms for the spec's 12 per 60 s). Each send's completion offset
 * (accepted by the service − requested) is set against the optimum: the first `limit` at once,
 * then one as each ages out of the window (send i at offset ⌊i / limit⌋ × windowMs).
 *
 * Two bursts on the same agent: a baseline, then the same burst while the human writes a
 * `typing` message every `statusEveryMs` (each one is marked read and shows the typing
 * indicator, both on their own counters). If mark-read and typing delayed replies, the second
 * burst would be later against the optimum than the first.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { startSimulator, type RunningSimulator } from '../simulator';
import type { RunningAmsflow } from '../worker/run';
import { startAmsflowAgent, waitUntil, type BenchTemporal } from './latency';
import type { Series } from './svg';
import { scaledTuning } from './scaled-tuning';

/** The figures of one burst. Times in ms; offsets from the moment the sends were requested. */
export interface BurstFigures {
  /** Whether the human wrote `typing` messages during this burst (mark-reads and typing). */
  withStatuses: boolean;
  /** Human wrote `burst …` → handler workflow started (the sends are requested in its first task). */
  pickupMs: number;
  /** Per send, in the order the service accepted them: accepted − requested. */
  offsetsMs: number[];
  /** Per send: offset − optimum offset. */
  latenessMs: { p50: number; max: number };
  /** Accepted − requested of send number `limit` (the last of the first window). */
  firstWindowOutMs: number;
  /**
   * Achieved ÷ limit after the first window: windowMs ÷ the mean gap between send i and send
   * i − limit, over i ≥ limit (no send can come earlier than windowMs after that one; 1 = optimum).
   */
  sustainedRatio: number;
  /** 429s during the burst, per endpoint. */
  status429: { messages: number; statuses: number; typing: number; updates: number };
  /** Status requests the service answered during the burst (mark-read; typing has its own). */
  statusRequests: { markRead: number; typing: number };
  /** Sends accepted (should be `sends`). */
  accepted: number;
}

/** What {@link measureSendBudget} measures. */
export interface SendBudgetResult {
  sends: number;
  windowMs: number;
  limit: number;
  statusEveryMs: number;
  /** Optimum offset of each send: ⌊i / limit⌋ × windowMs. */
  optimumMs: number[];
  baseline?: BurstFigures;
  withStatuses: BurstFigures;
  /**
   * Per send, lateness with statuses − lateness of the baseline: p50 and max (ms). Noise on a
   * shared machine is some tens of ms; a real delay from the status loop would be a send held
   * behind a mark-read or typing request (an activity round trip, or a window of its own).
   */
  statusDelayMs?: { p50: number; max: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (v: number) => Math.round(v);

function p50max(values: number[]): { p50: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: round(sorted[Math.floor(sorted.length / 2)] ?? NaN), max: round(sorted.at(-1) ?? NaN) };
}

async function burst(
  temporal: BenchTemporal,
  sim: RunningSimulator,
  agentKey: string,
  o: {
    sends: number;
    windowMs: number;
    limit: number;
    statusEveryMs: number;
    tag: string;
    withStatuses: boolean;
  },
): Promise<{ figures: BurstFigures; lastAt: number }> {
  const wroteAt = Date.now();
  const { id } = await sim.control.human({
    agent: agentKey,
    type: 'text',
    text: { body: `burst ${o.sends} ${o.tag}` },
  });
  const expectedMs = Math.ceil(o.sends / o.limit - 1) * o.windowMs;
  let done = false;
  const statuses = (async () => {
    if (!o.withStatuses) return;
    for (let t = o.statusEveryMs / 2; !done && t < expectedMs + o.windowMs; t += o.statusEveryMs) {
      await sleep(Math.max(0, wroteAt + t - Date.now()));
      if (!done) await sim.control.human({ agent: agentKey, type: 'text', text: { body: 'typing' } });
    }
  })();
  const accepted = await waitUntil(
    `${o.sends} sends of ${o.tag}`,
    async () => {
      const at = (await sim.control.transcript({ agent: agentKey })).sent
        .filter((s) => (s.body as { text?: { body?: string } }).text?.body?.startsWith(`${o.tag} `))
        .map((s) => s.realAt);
      return at.length >= o.sends && at;
    },
    expectedMs + 60_000,
  ).finally(() => (done = true));
  await statuses;
  accepted.sort((a, b) => a - b);
  const lastAt = accepted.at(-1)!;
  const requestedAt = await temporal.client.workflow
    .getHandle(`agent:${agentKey}:msg:${id}`)
    .describe()
    .then((d) => d.startTime.getTime())
    .catch(() => wroteAt);
  const offsets = accepted.map((at) => at - requestedAt);
  const gaps = accepted.slice(o.limit).map((at, i) => at - accepted[i]);
  const log = (await sim.control.log(agentKey)).filter((e) => e.at >= wroteAt && e.at <= lastAt);
  const count = (endpoint: string, status?: number) =>
    log.filter(
      (e) => e.endpoint === endpoint && (status === undefined ? e.status < 300 : e.status === status),
    ).length;
  return {
    lastAt,
    figures: {
      withStatuses: o.withStatuses,
      pickupMs: requestedAt - wroteAt,
      offsetsMs: offsets.map(round),
      latenessMs: p50max(offsets.map((v, i) => v - Math.floor(i / o.limit) * o.windowMs)),
      firstWindowOutMs: round(offsets[Math.min(o.limit, offsets.length) - 1]),
      sustainedRatio: gaps.length
        ? +(o.windowMs / (gaps.reduce((a, b) => a + b, 0) / gaps.length)).toFixed(3)
        : NaN,
      status429: {
        messages: count('messages', 429),
        statuses: count('statuses', 429),
        typing: count('typing', 429),
        updates: count('updates', 429),
      },
      statusRequests: { markRead: count('statuses'), typing: count('typing') },
      accepted: accepted.length,
    },
  };
}

/**
 * Runs the send-budget bench on its own simulator and an in-process amsflow (bench/workflows.ts)
 * on `temporal`: a warm-up echo, the baseline burst (unless `baseline` is false), then the burst
 * with mark-reads and typing. About 2 × ⌈sends / limit⌉ windows plus start-up.
 */
export async function measureSendBudget(
  temporal: BenchTemporal,
  options: { sends: number; windowMs: number; limit: number; statusEveryMs?: number; baseline?: boolean },
): Promise<SendBudgetResult> {
  const { sends, windowMs, limit } = options;
  const statusEveryMs = options.statusEveryMs ?? Math.round(windowMs / 6);
  const agent = {
    id: `budget-${randomUUID().slice(0, 8)}`,
    token: `token-${randomUUID()}`,
    creator: 'user:4242',
  };
  const limits = { windowMs, messages: limit };
  // Only the immediate 'sent' receipts: 'delivered' comes after the run, 'read' never.
  const sim = await startSimulator({
    port: 0,
    limits,
    receipts: { deliveredAfterMs: 3_600_000, readAfterMs: null },
    agents: [agent],
  });
  let amsflow: RunningAmsflow | undefined;
  try {
    amsflow = await startAmsflowAgent({
      temporalAddress: temporal.address,
      sim,
      agentKey: agent.id,
      token: agent.token,
      limits,
      // Scaled as the engine suites scale it.
      tuning: scaledTuning(windowMs),
      workflows: resolve(__dirname, 'workflows.ts'),
    });
    const sentCount = async () => (await sim.control.transcript({ agent: agent.id })).sent.length;
    await waitUntil(
      'the agent to poll',
      async () => (await sim.control.transcript({ agent: agent.id })).counts.requests.updates > 0,
      60_000,
    );
    await sim.control.human({ agent: agent.id, type: 'text', text: { body: 'echo warmup' } });
    await waitUntil('the warm-up reply', async () => (await sentCount()) >= 1, 30_000);
    // The warm-up send leaves the window before the burst.
    await sleep(windowMs + 300);
    const run = { sends, windowMs, limit, statusEveryMs };
    let base: BurstFigures | undefined;
    if (options.baseline !== false) {
      const b = await burst(temporal, sim, agent.id, { ...run, tag: 'base', withStatuses: false });
      base = b.figures;
      await sleep(Math.max(0, b.lastAt + windowMs + 300 - Date.now()));
    }
    const withStatuses = (await burst(temporal, sim, agent.id, { ...run, tag: 'busy', withStatuses: true }))
      .figures;
    const optimumMs = Array.from({ length: sends }, (_, i) => Math.floor(i / limit) * windowMs);
    return {
      sends,
      windowMs,
      limit,
      statusEveryMs,
      optimumMs,
      baseline: base,
      withStatuses,
      statusDelayMs: base
        ? p50max(withStatuses.offsetsMs.map((v, i) => v - (base.offsetsMs[i] ?? NaN)).filter(Number.isFinite))
        : undefined,
    };
  } finally {
    await amsflow?.shutdown();
    await temporal.client.workflow
      .getHandle(`agent:${agent.id}`)
      .terminate('bench over')
      .catch(() => undefined);
    await sim.close();
  }
}

/**
 * The data of the send-budget plot: sends accepted (cumulative) against seconds since they were
 * requested, for the optimum and each burst (step series, for {@link lineChart} of bench/svg.ts).
 */
export function sendBudgetSeries(result: SendBudgetResult): Series[] {
  const steps = (offsets: number[]): { x: number; y: number }[] => [
    { x: 0, y: 0 },
    ...offsets.map((ms, i) => ({ x: ms / 1000, y: i + 1 })),
  ];
  const series: Series[] = [{ name: 'optimum', points: steps(result.optimumMs), step: true, dashed: true }];
  if (result.baseline) series.push({ name: 'amsflow', points: steps(result.baseline.offsetsMs), step: true });
  series.push({
    name: 'amsflow + mark-read & typing',
    points: steps(result.withStatuses.offsetsMs),
    step: true,
  });
  return series;
}

/** Prints the send-budget figures as console tables (`perSend`: every send's offset too). */
export function printSendBudget(
  result: SendBudgetResult | { error: string },
  { perSend = false } = {},
): void {
  if ('error' in result) {
    console.log(`send budget: not measured (${result.error})`);
    return;
  }
  const { sends, limit, windowMs } = result;
  console.log(
    `\nsend budget: ${sends} sends requested at once, limit ${limit} per ${windowMs} ms ` +
      `(the spec's ${limit}/60 s scaled); mark-read + typing every ${result.statusEveryMs} ms in the second burst:`,
  );
  const row = (f: BurstFigures) => ({
    'pick-up ms': f.pickupMs,
    [`first ${limit} out ms`]: f.firstWindowOutMs,
    'last out ms': f.offsetsMs.at(-1),
    'late p50 ms': f.latenessMs.p50,
    'late max ms': f.latenessMs.max,
    'sustained ÷ limit': f.sustainedRatio,
    '429 msg': f.status429.messages,
    '429 other': f.status429.statuses + f.status429.typing + f.status429.updates,
    'mark-reads': f.statusRequests.markRead,
    typing: f.statusRequests.typing,
  });
  console.table({
    optimum: { [`first ${limit} out ms`]: 0, 'last out ms': result.optimumMs.at(-1), 'sustained ÷ limit': 1 },
    ...(result.baseline ? { amsflow: row(result.baseline) } : {}),
    'amsflow + mark-read & typing': row(result.withStatuses),
  });
  if (result.statusDelayMs)
    console.log(
      `mark-read & typing vs baseline, per send: p50 ${result.statusDelayMs.p50} ms, max ${result.statusDelayMs.max} ms`,
    );
  if (perSend)
    console.table(
      result.optimumMs.map((optimum, i) => ({
        optimum,
        ...(result.baseline ? { amsflow: result.baseline.offsetsMs[i] } : {}),
        'with statuses': result.withStatuses.offsetsMs[i],
      })),
    );
}
