/** The bench's console tables, one function a part (bench/run.ts prints them all at the end). */
import type { FleetResult } from './fleet';
import type { LatencyResult } from './latency';
import type { LiveChatResult } from './live-chat';
import { pollBudgetBound } from './live-chat-optimum';
import type { RecoveryResult } from './recovery';
import { ok, type BenchResults, type Maybe, type OnlyResults, type ServerResults } from './run-results';
import type { BurstFigures, SendBudgetResult } from './send-budget';
import { targetRows, tracingTargetRows } from './targets';
import type { ThroughputResult } from './throughput';
import type { TracingResult, TracingSide } from './tracing-cost';

/** Whether to print the part: a note for a failed one, nothing for one that did not run. */
function ran<T>(what: string, v: Maybe<T>): v is T {
  if (v && typeof v === 'object' && 'error' in v) console.log(`\n${what}: not measured (${String(v.error)})`);
  return ok(v) !== undefined;
}

const pct = (p: { n: number; p50Ms: number; p95Ms: number; p99Ms: number; maxMs?: number }) => ({
  n: p.n,
  p50: p.p50Ms,
  p95: p.p95Ms,
  p99: p.p99Ms,
  max: p.maxMs,
});

export function printLatency(on: string, latency: Maybe<LatencyResult>): void {
  if (!ran(`added latency ${on}`, latency)) return;
  console.log(
    `\nhuman message → reply accepted ${on}, ${latency.messages} echoes each, one every ${latency.spacingMs} ms (ms):`,
  );
  console.table({
    amsflow: pct(latency.amsflow),
    'plain loop': pct(latency.plain),
    'added (amsflow − plain)': latency.addedMs,
    'ratio (amsflow ÷ plain)': latency.ratio,
  });
  if (!latency.breakdown) return;
  console.log(`per hop, from the agent workflow's history (${latency.breakdown.matched} messages, ms):`);
  console.table(Object.fromEntries(Object.entries(latency.breakdown.steps).map(([hop, p]) => [hop, pct(p)])));
}

export function printTracing(on: string, t: Maybe<TracingResult>): void {
  if (!ran(`tracing ${on}`, t)) return;
  console.log(
    `\ntracing off and on ${on}: ${t.order.join(', ')}, ${t.messages} echoes a run, one every ${t.spacingMs} ms (ms):`,
  );
  const row = (s: TracingSide) => ({
    'amsflow p50': s.amsflowMs.p50,
    'amsflow p95': s.amsflowMs.p95,
    'plain p50': s.plainMs.p50,
    'added p50': s.addedMs.p50,
    'added p95': s.addedMs.p95,
    'ratio p50': s.ratio.p50,
    'added p50 per run': s.runAddedP50Ms.join(', '),
    'worker CPU ms/echo': s.workerCpuMsPerEcho,
    'spans/echo': s.spansPerEcho,
    'OTLP bytes/echo': s.otlpBytesPerEcho,
    'OTel SDK modules': s.otelSdkModules,
  });
  console.table({ off: row(t.off), on: row(t.on) });
  console.log(
    `tracing on − off (± standard error): p50 ${t.costMs.p50} ± ${t.costSeMs.p50} ms, p95 ${t.costMs.p95} ± ${t.costSeMs.p95} ms, ` +
      `worker CPU ${t.cpuMsPerEcho} ± ${t.cpuSeMsPerEcho} ms/echo; ` +
      `spans per echo: ${JSON.stringify(t.on.spansByName)}`,
  );
}

/** The latency section and the tracing part per server, and tracing's targets (issue 38): all an `--only tracing` run prints. */
export function printTracingResults(r: Pick<OnlyResults, 'servers'>): void {
  for (const s of Object.values(r.servers)) {
    if (!s) continue;
    printLatency(`(${s.kind} server)`, s.latency);
    printTracing(`(${s.kind} server)`, s.tracing);
  }
  console.log('\ntargets of issue 38 (tracing):');
  console.table(tracingTargetRows(r));
}

function printThroughput(who: string, t: Maybe<ThroughputResult>): void {
  if (!ran(`throughput, ${who}`, t)) return;
  console.log(`\nthroughput, ${who}: ${t.agents} agents, ${t.secondsPerStep} s a step (CPU in cores):`);
  console.table(Object.fromEntries(t.steps.map((s) => [`${s.perSecond} msg/s`, s])));
  console.log(`highest rate held (p99 ≤ 1 s, all answered): ${t.bestPerSecond ?? 'none'} msg/s`);
}

function printLiveChat(on: string, live: Maybe<LiveChatResult>): void {
  if (!ran(`live chat ${on}`, live)) return;
  console.log(
    `\nlive chat ${on} (${live.scale}), ${live.messages} messages, ${live.repliesSent} replies (ms):`,
  );
  console.table({
    'pick-up (wrote → handler started)': pct(live.pickup),
    'wrote → second reply accepted': pct(live.bothReplies),
  });
  console.log(
    `429s: updates ${live.status429.updates}, messages ${live.status429.messages}, all ${live.status429.total}`,
  );
  const bound = pollBudgetBound(live);
  console.log(
    `the poll budget on this traffic (bench/live-chat-optimum.ts; network and handler times 0): a client ` +
      `that sends 3 replies at a time right after a poll: pick-up p95 ${bound.groupedP95Ms} ms (so the best ` +
      `any client gets is that plus its network and handler time); one whose poller polls again at once ` +
      `beside an outbox that sends apart: p95 ${bound.independentP95Ms} ms`,
  );
}

function printRecovery(on: string, recovery: Maybe<RecoveryResult>): void {
  if (!ran(`recovery ${on}`, recovery)) return;
  const how = recovery.compiled ? 'compiled, as the image runs it' : 'under ts-node, as npm start runs it';
  console.log(`\nrecovery after SIGKILL of the worker ${on} (a new process started at once; ${how}):`);
  console.table(recovery.runs);
}

function printServer(s: ServerResults): void {
  const on = `(${s.kind} server)`;
  console.log(`\n=== ${s.server}`);
  printLatency(on, s.latency);
  printTracing(on, s.tracing);
  printThroughput(`amsflow ${on}`, s.throughput);
  printLiveChat(on, s.liveChat);
  printRecovery(on, s.recovery);
  printRecovery(on, s.recoveryCompiled);
  printFleet(s.fleet, ` ${on}`);
}

export function printSendBudget(b: Maybe<SendBudgetResult>): void {
  if (!ran('send budget', b)) return;
  console.log(
    `\nsend budget: ${b.sends} sends in two waves ${b.secondWaveAfterMs} ms apart, ${b.limit} per ${b.windowMs} ms; ` +
      `the second burst with mark-read + typing every ${b.statusEveryMs} ms and ${b.reminders} reminders due between its waves:`,
  );
  const row = (f: BurstFigures) => ({
    'pick-up ms': f.pickupMs,
    [`first ${b.limit} out ms`]: f.firstWindowOutMs,
    'last out ms': f.offsetsMs.at(-1),
    'late p50 ms': f.latenessMs.p50,
    'late max ms': f.latenessMs.max,
    'sustained ÷ limit': f.sustainedRatio,
    '429s': Object.values(f.status429).reduce((x, y) => x + y, 0),
    'mark-reads': f.statusRequests.markRead,
    typing: f.statusRequests.typing,
    'replies after 1st reminder': f.reminders?.repliesAfterFirst ?? '',
    'agent activities': JSON.stringify(f.agentHistory.activities),
  });
  console.table({ amsflow: row(b.baseline), 'amsflow + statuses + reminders': row(b.withStatuses) });
  console.log(
    `vs baseline, per send: p50 ${b.statusDelayMs.p50} ms, max ${b.statusDelayMs.max} ms; ` +
      `second wave: p50 ${b.secondWaveDelayMs.p50} ms, max ${b.secondWaveDelayMs.max} ms`,
  );
}

function printFleet(fleet: Maybe<FleetResult>, on = ''): void {
  if (!ran('fleet', fleet)) return;
  console.log(
    `\nagents on one worker process${on} (heap ${fleet.worker.heapMb ?? 'default'} MB, cache ${fleet.worker.maxCachedWorkflows ?? 'follows the heap'}):`,
  );
  const rows = fleet.rows.map((r) => [
    `${r.agents} agent(s)`,
    {
      'running ms': r.workerStartMs,
      'all polling ms': r.pollingMs,
      'RSS MB': r.workerRssMb,
      'peak RSS MB': r.workerRssPeakMb,
      'server RSS MB': r.serverRssMb,
      'idle worker cores': r.idle.workerCores,
      'idle events/agent/min': r.idle.eventsPerAgentMinute,
      'idle writes/agent/min': r.idle.server?.writesPerAgentMinute ?? '–',
      'idle actions/agent/min': r.idle.server?.actionsPerAgentMinute ?? '–',
      'Cloud $/agent-month': r.idle.server?.cloudUsdPerAgentMonth ?? '–',
      [`p50 ms @1/s`]: r.lowRate.latency.p50Ms,
      [`p99 ms @1/s`]: r.lowRate.latency.p99Ms,
      answered: `${r.lowRate.answered}/${r.lowRate.written}`,
    },
  ]);
  console.table(Object.fromEntries(rows));
  for (const f of fleet.failed) console.log(`${f.agents} agents: not measured (${f.error})`);
  for (const r of fleet.rows.filter((x) => x.idle.server)) {
    const { writesByOperation, actionsByType } = r.idle.server!;
    console.log(
      `${r.agents} idle agent(s), per agent-minute: writes ${JSON.stringify(writesByOperation)}; actions ${JSON.stringify(actionsByType)}`,
    );
  }
}

/** Every table of `r`, then the targets. */
export function printResults(r: BenchResults): void {
  console.table({ 'sendText (sequential)': r.client.sendText, 'getUpdates page of 50': r.client.getUpdates });
  console.log(
    `pacing step: ${r.pacing.slidingWindowNsPerRequest} ns; bench memory: ${JSON.stringify(r.memoryMb)} MB`,
  );
  for (const s of Object.values(r.servers)) printServer(s);
  console.log('\n=== once, on the embedded server');
  if (ran('cost', r.cost)) {
    console.log('\ncost per unit, from histories:');
    console.table(Object.fromEntries(r.cost.map((c) => [`${c.scenario} (${c.units})`, c.perUnit])));
  }
  printSendBudget(r.sendBudget);
  printFleet(r.fleet);
  if (ran('soak', r.soak)) console.table({ soak: r.soak });
  printThroughput('plain loop', r.plainThroughput);
  console.log('\ntargets of issue 21:');
  console.table(targetRows(r));
  console.log('\ntargets of issue 38 (tracing):');
  console.table(tracingTargetRows(r));
}
