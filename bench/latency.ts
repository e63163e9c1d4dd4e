/**
 * Added latency of durability: the human writes, the agent's echo reply is accepted by the
 * service. Measured for amsflow (the reference bot, `echo <text>` answered `<text>`, on a real
 * Temporal dev server) and for a plain, non-durable loop on the same MessagingClient (long-poll
 * getUpdates, send the echo), in the same run against the same simulator. The two agents write
 * alternately (each one message per `spacingMs`, offset by half of it) with limits raised, so
 * that neither the service's pacing nor the other agent's burst shows in the figures.
 *
 * Also the breakdown of amsflow's latency from the agent workflow's history: human wrote →
 * pollUpdates completed → child start initiated → handler started → sendMessage scheduled →
 * sendMessage started → accepted by the service.
 */
import type { AgentTuning } from '../protocol';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { MessagingClient } from '../messaging/client';
import { startSimulator, type RunningSimulator } from '../simulator';
import { resolveTemporalBinaries } from '../tools/temporal-binaries';
import { loadConfig } from '../worker/config';
import { startDevServer, type RunningDevServer } from '../worker/dev-server';
import { runAmsflow, type RunningAmsflow } from '../worker/run';

export interface Percentiles {
  n: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

export function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted.length === 0
      ? NaN
      : +sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(1);
  return { n: sorted.length, p50Ms: at(50), p95Ms: at(95), p99Ms: at(99), maxMs: at(100) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitUntil<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`bench: gave up waiting for ${what}`);
    await sleep(100);
  }
}

/** A Temporal dev server in a temp dir, with a client; `close()` stops both and removes the dir. */
export interface BenchTemporal {
  address: string;
  /** The dev server's process, for its CPU and memory. */
  serverPid: number;
  client: Client;
  close(): Promise<void>;
}

export async function startBenchTemporal(): Promise<BenchTemporal> {
  try {
    // The workers' INFO and WARN lines (e.g. activity-only workers polling no workflows) would bury the figures.
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Installed already.
  }
  const binaries = await resolveTemporalBinaries();
  if (binaries.cli.kind !== 'path') throw new Error('The Temporal CLI is needed on disk for the dev server');
  const dir = mkdtempSync(join(tmpdir(), 'amsflow-bench-'));
  let server: RunningDevServer | undefined;
  try {
    server = await startDevServer({
      cliPath: binaries.cli.path,
      dbFile: join(dir, 'temporal.db'),
      uiPort: false,
    });
    const connection = await Connection.connect({ address: server.address });
    const started = server;
    return {
      address: server.address,
      serverPid: server.pid,
      client: new Client({ connection }),
      async close() {
        await connection.close().catch(() => undefined);
        await started.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** Starts amsflow in this process for one agent of `sim` (quiet: its log lines are kept, not printed). */
export async function startAmsflowAgent(options: {
  temporalAddress: string;
  sim: RunningSimulator;
  agentKey: string;
  token: string;
  limits: Record<string, number>;
  tuning?: AgentTuning;
  workflows?: string;
}): Promise<RunningAmsflow> {
  const config = loadConfig({
    AMS_TOKEN: options.token,
    AMS_BASE_URL: options.sim.url,
    TEMPORAL_ADDRESS: options.temporalAddress,
    AMSFLOW_TASK_QUEUE: `bench-${options.agentKey}`,
    AMSFLOW_AGENT: options.agentKey,
    AMSFLOW_METRICS_PORT: '0',
    AMSFLOW_LIMITS: JSON.stringify(options.limits),
    ...(options.tuning ? { AMSFLOW_TUNING: JSON.stringify(options.tuning) } : {}),
    ...(options.workflows ? { AMSFLOW_WORKFLOWS: options.workflows } : {}),
  });
  return runAmsflow(config, () => undefined);
}

/** The plain loop: long-poll getUpdates, answer each `echo <text>` with `<text>`. */
function startPlainLoop(client: MessagingClient): { stop(): Promise<void> } {
  const abort = new AbortController();
  const loop = (async () => {
    let offset = 0;
    while (!abort.signal.aborted) {
      let page;
      try {
        page = await client.getUpdates({ offset, timeout: 10 }, { signal: abort.signal });
      } catch (err) {
        if (abort.signal.aborted) return;
        console.error('bench: plain loop poll failed:', (err as Error).message);
        await sleep(200);
        continue;
      }
      if (!page) continue;
      offset = page.next_offset;
      for (const entry of page.entry) {
        for (const change of entry.changes) {
          for (const message of change.value.messages ?? []) {
            const body =
              message.type === 'text' ? (message.text as { body?: string } | undefined)?.body : undefined;
            const echo = body && /^echo ([\s\S]+)$/.exec(body);
            if (echo)
              await client
                .sendText(echo[1])
                .catch((err: Error) => console.error('bench: plain send failed:', err.message));
          }
        }
      }
    }
  })();
  return {
    async stop() {
      abort.abort();
      await loop;
    },
  };
}

export interface Breakdown {
  /** Each step's duration from the previous one, in ms (p50/p95/p99 over the messages found). */
  steps: Record<string, Percentiles>;
  /** Messages whose steps were all found in the current run of the agent workflow. */
  matched: number;
  /**
   * The agent workflow's short timers (under 1 s asked, e.g. the receipt settle after a page of
   * receipts): what was asked, and when they fired. While one runs, no poll is open.
   */
  shortTimers: { asked: Percentiles; firedAfter: Percentiles };
}

export interface LatencyResult {
  messages: number;
  spacingMs: number;
  amsflow: Percentiles;
  plain: Percentiles;
  /** amsflow minus plain, per percentile. */
  addedMs: { p50: number; p95: number; p99: number };
  /** amsflow ÷ plain, per percentile. */
  ratio: { p50: number; p95: number; p99: number };
  status429: { amsflow: number; plain: number };
  breakdown?: Breakdown;
  /** Each message's latency (ms), per side: the distributions the plots draw. */
  samples: { amsflow: number[]; plain: number[] };
}

const RAISED = 1000;

export async function measureAddedLatency(
  temporal: BenchTemporal,
  { messages, spacingMs }: { messages: number; spacingMs: number },
): Promise<LatencyResult> {
  const id = randomUUID().slice(0, 8);
  const durable = { id: `lat-amsflow-${id}`, token: `token-a-${randomUUID()}`, creator: 'user:4242' };
  const plainAgent = { id: `lat-plain-${id}`, token: `token-p-${randomUUID()}`, creator: 'user:4242' };
  // Raised limits (same window): the figures are latency, not the service's pacing.
  const limits = { messages: RAISED, statuses: RAISED, typing: RAISED, updates: RAISED };
  const sim = await startSimulator({ port: 0, limits, agents: [durable, plainAgent] });
  const plainClient = new MessagingClient({ token: plainAgent.token, baseUrl: sim.url, limits });
  let amsflow: RunningAmsflow | undefined;
  let plain: { stop(): Promise<void> } | undefined;
  try {
    amsflow = await startAmsflowAgent({
      temporalAddress: temporal.address,
      sim,
      agentKey: durable.id,
      token: durable.token,
      limits,
    });
    plain = startPlainLoop(plainClient);
    await waitUntil(
      'both agents to poll',
      async () => {
        const [a, p] = await Promise.all([
          sim.control.transcript({ agent: durable.id }),
          sim.control.transcript({ agent: plainAgent.id }),
        ]);
        return a.counts.requests.updates > 0 && p.counts.requests.updates > 0;
      },
      60_000,
    );
    // One warm-up message each (first workflow start, first connection), not counted.
    for (const agent of [durable, plainAgent]) {
      await sim.control.human({ agent: agent.id, type: 'text', text: { body: 'echo warmup' } });
    }
    await waitUntil(
      'the warm-up replies',
      async () =>
        (await sim.control.transcript({ agent: durable.id })).sent.length >= 1 &&
        (await sim.control.transcript({ agent: plainAgent.id })).sent.length >= 1,
      30_000,
    );

    const written: { agent: string; text: string; id: string; at: number }[] = [];
    const start = Date.now();
    for (let i = 0; i < messages; i++) {
      for (const [k, agent] of [durable, plainAgent].entries()) {
        const due = start + i * spacingMs + (k * spacingMs) / 2;
        await sleep(Math.max(0, due - Date.now()));
        const text = `m${i}`;
        const at = Date.now();
        const { id: messageId } = await sim.control.human({
          agent: agent.id,
          type: 'text',
          text: { body: `echo ${text}` },
        });
        written.push({ agent: agent.id, text, id: messageId, at });
      }
    }
    const replyAt = async (agent: string) => {
      const t = await sim.control.transcript({ agent });
      const byText = new Map<string, number>();
      for (const s of t.sent) {
        const body = (s.body as { text?: { body?: string } }).text?.body;
        if (body !== undefined && !byText.has(body)) byText.set(body, s.realAt);
      }
      return { byText, status429: Object.values(t.counts.status429).reduce((a, b) => a + b, 0) };
    };
    await waitUntil(
      'every reply',
      async () => {
        const [a, p] = await Promise.all([replyAt(durable.id), replyAt(plainAgent.id)]);
        return written.every((w) => (w.agent === durable.id ? a : p).byText.has(w.text));
      },
      30_000,
    ).catch((err: Error) => console.error(err.message));
    const [a, p] = await Promise.all([replyAt(durable.id), replyAt(plainAgent.id)]);
    const lat = (agent: string, replies: Map<string, number>) =>
      written.filter((w) => w.agent === agent && replies.has(w.text)).map((w) => replies.get(w.text)! - w.at);
    const samples = { amsflow: lat(durable.id, a.byText), plain: lat(plainAgent.id, p.byText) };
    const amsflowP = percentiles(samples.amsflow);
    const plainP = percentiles(samples.plain);
    const round = (x: number) => +x.toFixed(1);
    const breakdown = await historyBreakdown(
      temporal.client,
      durable.id,
      written.filter((w) => w.agent === durable.id).map((w) => ({ ...w, acceptedAt: a.byText.get(w.text) })),
    ).catch((err: Error) => {
      console.error(`bench: no breakdown (${err.message})`);
      return undefined;
    });
    return {
      messages,
      spacingMs,
      amsflow: amsflowP,
      plain: plainP,
      addedMs: {
        p50: round(amsflowP.p50Ms - plainP.p50Ms),
        p95: round(amsflowP.p95Ms - plainP.p95Ms),
        p99: round(amsflowP.p99Ms - plainP.p99Ms),
      },
      ratio: {
        p50: +(amsflowP.p50Ms / plainP.p50Ms).toFixed(2),
        p95: +(amsflowP.p95Ms / plainP.p95Ms).toFixed(2),
        p99: +(amsflowP.p99Ms / plainP.p99Ms).toFixed(2),
      },
      status429: { amsflow: a.status429, plain: p.status429 },
      breakdown,
      samples,
    };
  } finally {
    await plain?.stop();
    await plainClient.close();
    await amsflow?.shutdown();
    await temporal.client.workflow
      .getHandle(`agent:${durable.id}`)
      .terminate('bench over')
      .catch(() => undefined);
    await sim.close();
  }
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const eventMs = (e: HistoryEvent): number => {
  const t = e.eventTime;
  return t ? Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6 : NaN;
};

/**
 * Where amsflow's latency goes, from the agent workflow's history (messages are spaced, so at
 * most one is in flight: the first sendMessage scheduled after its handler started is its reply).
 */
async function historyBreakdown(
  client: Client,
  agentKey: string,
  written: { id: string; at: number; acceptedAt?: number }[],
): Promise<Breakdown> {
  const history = await client.workflow.getHandle(`agent:${agentKey}`).fetchHistory();
  const events = history.events ?? [];
  const polls: number[] = [];
  const childInitiated = new Map<string, number>();
  const sendScheduled: { id: number; at: number }[] = [];
  const started = new Map<number, number>();
  const pollIds = new Set<number>();
  const timers = new Map<string, { at: number; askedMs: number }>();
  const asked: number[] = [];
  const firedAfter: number[] = [];
  for (const e of events) {
    const timer = e.timerStartedEventAttributes;
    if (timer?.timerId && timer.startToFireTimeout) {
      const t = timer.startToFireTimeout;
      const askedMs = Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6;
      if (askedMs < 1000) timers.set(timer.timerId, { at: eventMs(e), askedMs });
    }
    const fired = e.timerFiredEventAttributes?.timerId && timers.get(e.timerFiredEventAttributes.timerId);
    if (fired) {
      asked.push(fired.askedMs);
      firedAfter.push(eventMs(e) - fired.at);
    }
    const id = Number(e.eventId);
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'sendMessage') sendScheduled.push({ id, at: eventMs(e) });
    if (scheduled?.activityType?.name === 'pollUpdates') pollIds.add(id);
    const completed = e.activityTaskCompletedEventAttributes;
    if (completed && pollIds.has(Number(completed.scheduledEventId))) polls.push(eventMs(e));
    const st = e.activityTaskStartedEventAttributes;
    if (st) started.set(Number(st.scheduledEventId), eventMs(e));
    const child = e.startChildWorkflowExecutionInitiatedEventAttributes;
    if (child?.workflowId) childInitiated.set(child.workflowId, eventMs(e));
  }
  const steps: Record<string, number[]> = {
    'wrote → poll completed': [],
    'poll completed → child initiated': [],
    'child initiated → handler started': [],
    'handler started → send scheduled': [],
    'send scheduled → send started': [],
    'send started → accepted': [],
  };
  let matched = 0;
  for (const w of written) {
    const workflowId = `agent:${agentKey}:msg:${w.id}`;
    const initiated = childInitiated.get(workflowId);
    if (initiated === undefined || w.acceptedAt === undefined) continue;
    const polled = polls.filter((t) => t <= initiated).at(-1);
    const handlerStart = (await client.workflow.getHandle(workflowId).describe()).startTime.getTime();
    const send = sendScheduled.find((s) => s.at >= handlerStart);
    const sendStarted = send && started.get(send.id);
    if (polled === undefined || !send || !sendStarted) continue;
    matched++;
    steps['wrote → poll completed'].push(polled - w.at);
    steps['poll completed → child initiated'].push(initiated - polled);
    steps['child initiated → handler started'].push(handlerStart - initiated);
    steps['handler started → send scheduled'].push(send.at - handlerStart);
    steps['send scheduled → send started'].push(sendStarted - send.at);
    steps['send started → accepted'].push(w.acceptedAt - sendStarted);
  }
  return {
    matched,
    shortTimers: { asked: percentiles(asked), firedAfter: percentiles(firedAfter) },
    steps: Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, percentiles(v)])),
  };
}
