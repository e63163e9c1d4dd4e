/**
 * The chaos run: `workers` worker processes for `agents` agents on a Temporal dev server of the
 * run's own, or with `cluster` on the native PostgreSQL cluster behind toxiproxy
 * (chaos/cluster-stage.ts); scripted humans write `messages` messages (echo, whole signups,
 * reminders, approvals requested from outside, photos), while the run SIGKILLs a worker after
 * every messages/(kills+1) messages, restarts the Temporal server `restarts` times on the same
 * data, and the simulator injects faults into about 5 % of the requests; on the cluster the
 * nemesis (chaos/nemesis.ts) adds network faults and database outages. Returns the verdict
 * (chaos/tally.ts) and the figures beside it: recovery after each kill, faults injected and met,
 * duration.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { prebuildReferenceBundle } from '../bench/worker-process';
import { agentWorkflowId, askAgainOnRebuild } from '../protocol';
import { ambiguousKinds, startFaults } from './faults';
import { MESSAGES_PER_SESSION, botTexts, runSession, type Human, type SessionKind } from './human';
import { startClusterStage } from './cluster-stage';
import {
  startNemesis,
  stopsEverything,
  type Nemesis,
  type NemesisEvent,
  type NemesisOptions,
} from './nemesis';
import { startServingMonitor } from './serving-monitor';
import { startStage } from './stage';
import type { LogEntry, Transcript } from '../simulator';
import {
  earlyRetries,
  readLateness,
  readTicksOf,
  served429ByEndpoint,
  stalledMs,
  tally,
  type ChaosVerdict,
  type Expectation,
  type Stall,
} from './tally';

export interface ChaosOptions {
  messages: number;
  kills: number;
  restarts: number;
  agents?: number;
  workers?: number;
  /** The simulator's window (the spec's minute scaled down). Default 6000 ms. */
  windowMs?: number;
  faultShare?: number;
  seed?: number;
  /** A step not answered within this long counts as stuck. Default 90000 ms. */
  stepTimeoutMs?: number;
  /**
   * The simulator's grace from a message's delivery to its mark-read (simulated ms, at the run's
   * speed 1 also real ms); a message unread longer is a protocol violation. Default
   * {@link CHAOS_UNREAD_GRACE_MS}.
   */
  unreadGraceMs?: number;
  /** The largest p95 of the read ticks' lateness after their replies the run accepts. Default 5000 ms. */
  readLateP95Ms?: number;
  /** Stop writing after this many minutes even if fewer messages were written. */
  minutes?: number;
  /** Keep the database, transcripts and worker output here (see chaos/stage.ts). */
  keepDir?: string;
  /** Run on the native PostgreSQL cluster behind toxiproxy, with this nemesis. */
  cluster?: NemesisOptions & {
    /** Kinds the run meets at least once (caused after the writing when not met during it). */
    require?: ('partition' | 'postgres')[];
  };
  log?: (line: string) => void;
}

/**
 * The chaos run's grace from a message's delivery to its mark-read (`--unread-grace-ms`), longer
 * than the simulator's default 10 s by what the run's faults cost with nothing wrong: a worker
 * killed in the middle of the agent's workflow task is noticed only when that task times out
 * (7 s), and a conversation it held waits out its sticky queue (3 s) before another worker takes
 * it (measured: a message delivered as its worker was killed, read 11.2 s later, the reply 0.1 s
 * after); on the cluster, the server and the workers' pollers take seconds to serve again after a
 * database outage, beyond the outage itself (whose time is not counted: chaos/tally.ts).
 */
export const CHAOS_UNREAD_GRACE_MS = 15_000;

export interface ChaosResult {
  options: Required<Omit<ChaosOptions, 'log' | 'keepDir' | 'cluster'>> & Pick<ChaosOptions, 'cluster'>;
  verdict: ChaosVerdict;
  messagesWritten: number;
  sessions: Record<SessionKind, number>;
  kills: number;
  restarts: number;
  faultsInjected: Record<string, number>;
  requests: number;
  /** The longest a human waited for an answer (or a photo's handler and mark-read), ms. */
  slowestStepMs: number;
  /** Worker processes that exited without being killed (the supervisor started new ones). */
  unexpectedExits: number;
  /** How long the cluster did not serve an agent's workflow (chaos/serving-monitor.ts), ms summed over agents. */
  unservedMs: number;
  /** Per kill: ms from the kill to the next message the bot had accepted. */
  recoveryMs: number[];
  durationMs: number;
  /** Each stuck expectation: what was awaited, and what became of its handler. */
  stuckDetails: string[];
  /** On the cluster: the nemesis' faults per kind, and its timeline. */
  nemesis?: { met: Record<string, number>; events: NemesisEvent[]; errors: string[] };
}

/**
 * Keeps, for the post-mortem, in `dir/histories/`: the history of every run of each agent
 * workflow (continue-as-new starts a new one, so the current run alone would miss the moment
 * that went wrong) and of every stuck session's handler.
 */
async function keepHistories(client: Client, agents: string[], stuck: Expectation[], dir: string) {
  const handlers = stuck.flatMap(
    (e) =>
      /^agent:\S+:msg:\S+/.exec(e.detail ?? '')?.[0] ??
      (e.kind === 'media' ? `agent:${e.agent}:msg:${e.text}` : []),
  );
  const runs: { workflowId: string; runId?: string }[] = handlers.map((workflowId) => ({ workflowId }));
  for (const agent of agents) {
    const query = `WorkflowId = "agent:${agent}"`;
    for await (const run of client.workflow.list({ query }))
      runs.push({ workflowId: run.workflowId, runId: run.runId });
  }
  mkdirSync(join(dir, 'histories'), { recursive: true });
  for (const { workflowId, runId } of runs) {
    const history = await client.workflow
      .getHandle(workflowId, runId)
      .fetchHistory()
      .catch(() => undefined);
    const name = `${workflowId}${runId ? `-${runId}` : ''}`.replace(/[^\w.-]+/g, '_');
    if (history) writeFileSync(join(dir, 'histories', `${name}.json`), historyToJSON(history));
  }
}

/** A small deterministic generator (mulberry32), so a seed reproduces the run's choices. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KINDS: readonly SessionKind[] = ['echo', 'signup', 'reminder', 'approval', 'media'];

/**
 * The kind of the `n`th session (0, 1, ...): the first sessions go once through every kind (a short
 * run meets each, whatever the random draws, which the faults' timing also moves), then by chance.
 */
function pickKind(random: () => number, n: number): SessionKind {
  if (n < KINDS.length) return KINDS[n];
  const r = random();
  return r < 0.45 ? 'echo' : r < 0.65 ? 'signup' : r < 0.8 ? 'reminder' : r < 0.92 ? 'approval' : 'media';
}

export async function runChaos(input: ChaosOptions): Promise<ChaosResult> {
  const { log = () => undefined, keepDir, ...given } = input;
  const options = {
    agents: 3,
    workers: 2,
    windowMs: 6000,
    faultShare: 0.05,
    seed: 1,
    minutes: 60,
    stepTimeoutMs: 90_000,
    unreadGraceMs: CHAOS_UNREAD_GRACE_MS,
    readLateP95Ms: 5000,
    ...given,
  };
  const stopWritingAt = Date.now() + options.minutes * 60_000;
  const random = seeded(options.seed);
  const started = Date.now();
  const bundle = await prebuildReferenceBundle();
  const stageOptions = { ...options, workflowBundle: bundle.file, keepDir, log };
  const stage = await (options.cluster ? startClusterStage(stageOptions) : startStage(stageOptions));
  const faults = startFaults(stage.sim, stage.agents, { share: options.faultShare, random });
  const nemesis: Nemesis | undefined =
    options.cluster && stage.cluster
      ? startNemesis(stage.cluster, options.cluster, { random, log })
      : undefined;
  // Each agent's workflow described four times a second from the run's own client: the time the
  // cluster did not answer is that agent's stall (chaos/serving-monitor.ts).
  const serving = startServingMonitor(stage.agents, (agent, deadline) =>
    stage.client.connection
      .withDeadline(deadline, () => stage.client.workflow.getHandle(agentWorkflowId(agent)).describe())
      .catch((err: unknown) => {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }),
  );
  let servingStopped = false;
  const stopServing = async () => {
    if (servingStopped) return [];
    servingStopped = true;
    return serving.stop();
  };
  const expectations: Expectation[] = [];
  const approvals: Record<string, number> = {};
  const sessions: Record<SessionKind, number> = { echo: 0, signup: 0, reminder: 0, approval: 0, media: 0 };
  const killedAt: number[] = [];
  const restartedAt: number[] = [];
  /** Each server restart, from its start until the server answered again. */
  const restartStalls: Stall[] = [];
  let written = 0;
  let repeatedQuestions = 0;
  let slowestStepMs = 0;
  let restarts = 0;
  const every = options.messages / (options.kills + 1);
  const restartAt = Array.from(
    { length: options.restarts },
    (_, i) => ((i + 1) * options.messages) / (options.restarts + 1),
  );
  let chaos: Promise<void> = Promise.resolve();
  const wrote = () => {
    written++;
    if (killedAt.length < options.kills && written >= (killedAt.length + 1) * every) {
      killedAt.push(Date.now());
      chaos = chaos.then(async () => {
        const slot = await stage.killWorker((n) => Math.floor(random() * n));
        log(`chaos: ${written} messages, killed worker ${slot} (kill ${killedAt.length}/${options.kills})`);
      });
    }
    if (restarts < restartAt.length && written >= restartAt[restarts]) {
      restarts++;
      chaos = chaos.then(async () => {
        log(`chaos: ${written} messages, restarting the Temporal server (${restarts}/${options.restarts})`);
        const from = Date.now();
        restartedAt.push(from);
        await stage.restartServer();
        restartStalls.push({ from, to: Date.now() });
      });
    }
  };
  try {
    let next = 0;
    const humans = stage.agents.map(async (agent) => {
      const h: Human = {
        agent,
        sim: stage.sim,
        client: stage.client,
        taskQueue: stage.taskQueue,
        stepTimeoutMs: options.stepTimeoutMs,
        expectations,
        approvals,
        repeatedQuestions: 0,
        slowestStepMs: 0,
        wrote,
        log,
      };
      while (written < options.messages && Date.now() < stopWritingAt) {
        const n = next++;
        const kind = pickKind(random, n);
        sessions[kind]++;
        await runSession(h, kind, `c${n}`);
        if (written % 50 < MESSAGES_PER_SESSION[kind])
          log(`chaos: ${written}/${options.messages} messages written`);
      }
      repeatedQuestions += h.repeatedQuestions;
      slowestStepMs = Math.max(slowestStepMs, h.slowestStepMs);
    });
    await Promise.all(humans);
    await chaos;
    await nemesis?.stop(options.cluster?.require);
    await faults.stop();
    // Reminders due within seconds of their session: give them time, a worker kill included.
    const reminders = expectations.filter((e) => e.kind === 'reminder');
    const deadline = Date.now() + 90_000;
    for (;;) {
      const texts = Object.fromEntries(
        await Promise.all(
          stage.agents.map(async (a) => [a, (await botTexts(stage.sim, a)).map((t) => t.text)] as const),
        ),
      );
      if (reminders.every((e) => texts[e.agent].includes(e.text)) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    // A few seconds more, so that a reminder firing twice would show.
    await new Promise((r) => setTimeout(r, 5000));
    // Counted at once: the sessions and the reminders' wait above have waited for everything they
    // expected, so a message unread now was left unread (a mark-read lagging its reply is what the
    // read ticks and the simulator's grace measure).
    const endedAt = Date.now();
    const transcripts: Record<string, Transcript> = Object.fromEntries(
      await Promise.all(
        stage.agents.map(async (a) => [a, await stage.sim.control.transcript({ agent: a })] as const),
      ),
    );
    let unread = 0;
    for (const agent of stage.agents)
      unread += transcripts[agent].inbound.filter((m) => !m.markedRead).length;
    const unserved = await stopServing();
    for (const s of unserved.filter((x) => x.to - x.from >= 1000))
      log(
        `chaos: the cluster did not serve ${s.agent ?? 'any agent'} for ${((s.to - s.from) / 1000).toFixed(1)} s (${sinceLast(killedAt, s.from)} after a kill, ${sinceLast(restartedAt, s.from)} after a restart)`,
      );
    const span = (e: NemesisEvent): Stall => ({ from: e.at, to: e.at + e.ms });
    const nemesisEvents = nemesis?.events ?? [];
    const stalls: Stall[] = [
      ...restartStalls,
      ...nemesisEvents.filter(stopsEverything).map(span),
      ...unserved,
    ];
    // The time a latency, reset or bandwidth fault slowed the links: not counted against the grace.
    const slowed: Stall[] = nemesisEvents.filter((e) => !stopsEverything(e)).map(span);
    const inbound = stage.agents.flatMap((a) =>
      transcripts[a].inbound.flatMap((m) =>
        m.deliveredAt === null ? [] : [{ agent: a, deliveredAt: m.deliveredAt, readAt: m.readAt }],
      ),
    );
    const readTicks = stage.agents.flatMap((a) => readTicksOf(a, transcripts[a]));
    // Each message left unread, with what its agent says of its mark-reads and what its
    // statuses requests were answered.
    for (const agent of stage.agents) {
      const left = transcripts[agent].inbound.filter((m) => !m.markedRead);
      if (left.length === 0) continue;
      const handle = stage.client.workflow.getHandle(agentWorkflowId(agent));
      const state = await askAgainOnRebuild(() =>
        handle.query<{ pendingMarkRead: number; dropped: unknown; generation: number }>('amsflow.state'),
      )
        .then((v) =>
          JSON.stringify({ pending: v.pendingMarkRead, dropped: v.dropped, generation: v.generation }),
        )
        .catch((err: Error) => err.message);
      const answers: Record<string, number> = {};
      for (const l of await stage.sim.control.log(agent))
        if (l.endpoint === 'statuses') answers[l.status] = (answers[l.status] ?? 0) + 1;
      const ids = left.map((m) => `${m.id}${m.deliveredAt === null ? ' (never delivered)' : ''}`);
      log(
        `chaos: unread on ${agent}: ${ids.join(', ')}; agent ${state}; statuses answered ${JSON.stringify(answers)}`,
      );
    }
    // Each message read late (past the grace, or later than its reply by more than the p95 limit),
    // with the stalls' share and how long after the last kill and restart, for the post-mortem.
    for (const agent of stage.agents) {
      let agentLog: LogEntry[] | undefined;
      for (const m of transcripts[agent].inbound) {
        const delivered = m.deliveredAt;
        if (!m.pastGrace || delivered === null) continue;
        const until = m.readAt ?? endedAt;
        log(
          `chaos: ${m.id} on ${agent} ${m.readAt === null ? 'still unread' : 'read'} ${until - delivered} ms after its delivery (${stalledMs(delivered, until, stalls, agent)} ms of it stalled by a fault or the cluster not serving, ${stalledMs(delivered, until, slowed)} ms slowed by one); ${sinceLast(killedAt, delivered)} after a kill, ${sinceLast(restartedAt, delivered)} after a restart`,
        );
        // What happened meanwhile, in ms from its delivery: the run's events and the agent's requests.
        const at = (t: number) => `${t - delivered >= 0 ? '+' : ''}${t - delivered}`;
        const overlaps = (from: number, to: number) => to >= delivered - 10_000 && from <= until;
        const happened = [
          ...killedAt.filter((t) => overlaps(t, t)).map((t) => `${at(t)} kill`),
          ...restartStalls
            .filter((s) => overlaps(s.from, s.to))
            .map((s) => `${at(s.from)} restart ${s.to - s.from} ms`),
          ...nemesisEvents
            .filter((e) => overlaps(e.at, e.at + e.ms))
            .map((e) => `${at(e.at)} ${e.kind} ${e.ms} ms`),
          ...unserved
            .filter((s) => (s.agent === undefined || s.agent === agent) && overlaps(s.from, s.to))
            .map((s) => `${at(s.from)} not served ${s.to - s.from} ms`),
        ];
        agentLog ??= await stage.sim.control.log(agent);
        const requests = agentLog
          .filter((l) => overlaps(l.receivedAt, l.at))
          .map(
            (l) =>
              `${at(l.receivedAt)}..${at(l.at)} ${l.endpoint ?? l.path} ${l.status}${l.fault ? ` (${l.fault})` : ''}`,
          );
        log(`chaos:   meanwhile: ${happened.join('; ')}`);
        log(`chaos:   its agent's requests: ${requests.join('; ')}`);
      }
    }
    for (const t of readTicks.filter((x) => readLateness(x, endedAt, stalls) > options.readLateP95Ms)) {
      log(
        `chaos: read tick of ${t.messageId} on ${t.agent} ${readLateness(t, endedAt, stalls)} ms after its reply (stalls not counted); ${sinceLast(killedAt, t.replyAt)} after a kill, ${sinceLast(restartedAt, t.replyAt)} after a restart`,
      );
    }

    const botTextsByAgent: Record<string, string[]> = {};
    const acceptedAt: number[] = [];
    let overlappingSends = 0;
    let status429 = 0;
    let requests = 0;
    const logLines = [];
    for (const agent of stage.agents) {
      const sent = await botTexts(stage.sim, agent);
      botTextsByAgent[agent] = sent.map((t) => t.text);
      acceptedAt.push(...sent.map((t) => t.at));
      const t = transcripts[agent];
      overlappingSends += t.counts.overlappingSends;
      status429 += Object.values(t.counts.status429).reduce((a, b) => a + b, 0);
      requests += Object.values(t.counts.requests).reduce((a, b) => a + b, 0);
      logLines.push(...(await stage.sim.control.log(agent)).map((l) => ({ ...l, agent })));
    }
    // Every poll 409 the service was not told to inject (two polls of one agent overlapped), with
    // how long after the last kill, restart and network fault it came.
    // A 409 whose newer poll was a request its client had already closed (the service took it up
    // late, e.g. behind an injected slow answer) is not two polls at once: logged, not counted.
    const all409s = logLines.filter((l) => l.endpoint === 'updates' && l.status === 409);
    for (const l of all409s.filter((x) => x.replacedByAbandoned)) {
      log(
        `chaos: poll 409 on ${l.agent}: replaced by a request its client had closed before the service took it up`,
      );
    }
    const poll409s = all409s.filter((l) => !l.replacedByAbandoned);
    for (const l of poll409s.filter((x) => !x.fault)) {
      const fault = [...(nemesis?.events ?? [])].reverse().find((e) => e.at <= l.at);
      const faultText = fault
        ? `${((l.at - fault.at) / 1000).toFixed(1)} s after "${fault.kind}" (${fault.ms} ms) began`
        : 'before any network or database fault';
      log(
        `chaos: poll 409 not injected on ${l.agent}: ${sinceLast(killedAt, l.at)} after a kill, ${sinceLast(restartedAt, l.at)} after a restart, ${faultText}`,
      );
    }
    // Every request sooner than allowed after a 429, with how long after the last kill and restart.
    for (const e of earlyRetries(logLines)) {
      log(
        `chaos: ${e.endpoint ?? '?'} request on ${e.agent} ${e.afterMs} ms after a 429; ${sinceLast(killedAt, e.at)} after a kill, ${sinceLast(restartedAt, e.at)} after a restart`,
      );
    }
    const consumed = await faults.consumed();
    const faultsInjected: Record<string, number> = {};
    const injected429: Record<string, number> = {};
    for (const f of consumed) {
      faultsInjected[`${f.endpoint} ${f.kind}`] = (faultsInjected[`${f.endpoint} ${f.kind}`] ?? 0) + 1;
      if (f.kind === 'rate_limit') injected429[f.endpoint] = (injected429[f.endpoint] ?? 0) + 1;
    }
    // Which endpoint the limiter refused, and when: the verdict has only the total.
    for (const [endpoint, n] of Object.entries(served429ByEndpoint(logLines, injected429))) {
      const refused = logLines.filter((l) => l.endpoint === endpoint && l.status === 429);
      const when = refused.map((l) => `${l.agent} ${sinceLast(killedAt, l.at)} after a kill`);
      log(`chaos: ${n} more 429s on ${endpoint} than injected; its 429s: ${when.join(', ')}`);
    }
    acceptedAt.sort((a, b) => a - b);
    if (keepDir)
      await keepHistories(
        stage.client,
        stage.agents,
        expectations.filter((e) => e.outcome === 'stuck'),
        keepDir,
      );
    const verdict = tally({
      expectations,
      botTexts: botTextsByAgent,
      repeatedQuestions,
      approvalsResolved: approvals,
      log: logLines,
      overlappingSends,
      status429,
      injected429: consumed.filter((f) => f.kind === 'rate_limit').length,
      replacedPolls: poll409s.length,
      // As the service's log tags them (a count of faults consumed cannot tell which 409 was which).
      injectedReplaced: poll409s.filter((l) => l.fault === 'poll_replaced').length,
      ambiguousInjected: ambiguousKinds(consumed),
      unread,
      inbound,
      unreadGraceMs: options.unreadGraceMs,
      stalls,
      slowed,
      readTicks,
      endedAt,
      readLateP95LimitMs: options.readLateP95Ms,
    });
    return {
      options,
      verdict,
      messagesWritten: written,
      sessions,
      kills: killedAt.length,
      restarts,
      faultsInjected,
      requests,
      unexpectedExits: stage.unexpectedExits(),
      unservedMs: unserved.reduce((sum, x) => sum + x.to - x.from, 0),
      slowestStepMs,
      recoveryMs: killedAt.map((k) => (acceptedAt.find((a) => a > k) ?? NaN) - k),
      durationMs: Date.now() - started,
      stuckDetails: expectations
        .filter((e) => e.outcome === 'stuck')
        .map((e) => `${e.kind} "${e.text}" on ${e.agent}: ${e.detail ?? '?'}`),
      ...(nemesis ? { nemesis: { met: nemesis.met, events: nemesis.events, errors: nemesis.errors } } : {}),
    };
  } finally {
    await stopServing();
    await nemesis?.stop();
    await faults.stop();
    await stage.close();
    bundle.close();
  }
}

/** How long before `at` the last of `times` was ('-': none). */
function sinceLast(times: number[], at: number): string {
  const before = times.filter((t) => t <= at).at(-1);
  return before === undefined ? '-' : `${((at - before) / 1000).toFixed(1)} s`;
}
