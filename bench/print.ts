/** The bench's console tables, one function a section (bench/run.ts prints them in order). */
import type { FleetResult, FleetRow } from './fleet';
import type { LatencyResult } from './latency';
import type { LiveChatResult } from './live-chat';
import type { FleetPoint } from './plots';
import type { RecoveryResult } from './recovery';
import type { SoakResult } from './soak';

/** A fleet row as the plots take it: agents, the worker's RSS, the low-rate p99. */
export function fleetPoint(row: FleetRow): FleetPoint {
  return { agents: row.agents, rssMb: row.workerRssAfterMb, p99Ms: row.lowRate.latency.p99Ms };
}

export function printSoak(soak: SoakResult | { error: string }): void {
  if ('error' in soak) {
    console.log(`soak: not measured (${soak.error})`);
    return;
  }
  console.log('\nhistory soak, one agent:');
  console.table({ soak });
}

export function printFleet(fleet: FleetResult | { error: string }): void {
  if ('error' in fleet) {
    console.log(`fleet: not measured (${fleet.error})`);
    return;
  }
  console.log('\nagents on one worker process (limits raised; echo traffic):');
  console.table(
    Object.fromEntries(
      fleet.rows.map((r) => [
        `${r.agents} agent(s)`,
        {
          'ready ms': r.readyMs,
          'worker RSS MB': r.workerRssMb,
          'RSS after MB': r.workerRssAfterMb,
          'server RSS MB': r.serverRssMb,
          'idle worker cores': r.idle.workerCores,
          'idle server cores': r.idle.serverCores,
          'idle events/agent/min': r.idle.eventsPerAgentMinute,
          [`p50 ms @${r.lowRate.perSecond}/s`]: r.lowRate.latency.p50Ms,
          [`p99 ms @${r.lowRate.perSecond}/s`]: r.lowRate.latency.p99Ms,
          answered: `${r.lowRate.answered}/${r.lowRate.written}`,
        },
      ]),
    ),
  );
  if (fleet.ladder) {
    console.log(`message rate ladder, ${fleet.ladder.agents} agents:`);
    console.table(Object.fromEntries(fleet.ladder.steps.map((s) => [`${s.perSecond} msg/s`, s])));
    console.log(`highest rate held (p99 < 1 s, all answered): ${fleet.ladder.bestPerSecond ?? 'none'} msg/s`);
  }
  if (fleet.messageCost) {
    const c = fleet.messageCost;
    console.log(`cost of one handled message (${c.messages} echoes, one agent):`);
    console.table({ 'agent workflow': c.agent, handler: c.handler, total: c.total });
  }
}

export function printRecovery(recovery: RecoveryResult | { error: string }): void {
  if ('error' in recovery) {
    console.log(`recovery: not measured (${recovery.error})`);
    return;
  }
  console.log('\nrecovery after SIGKILL of the worker (a new process started at once):');
  console.table(recovery.runs);
}

export function printLatency(latency: LatencyResult | { error: string }): void {
  if ('error' in latency) {
    console.log(`added latency: not measured (${latency.error})`);
    return;
  }
  console.log(
    `\nhuman message → reply accepted, ${latency.messages} echoes each, one every ${latency.spacingMs} ms, ` +
      'limits raised (ms):',
  );
  const row = (p: { p50Ms: number; p95Ms: number; p99Ms: number; n: number }) => ({
    n: p.n,
    p50: p.p50Ms,
    p95: p.p95Ms,
    p99: p.p99Ms,
  });
  console.table({
    amsflow: row(latency.amsflow),
    'plain loop': row(latency.plain),
    'added (amsflow − plain)': { n: '', ...rename(latency.addedMs) },
    'ratio (amsflow ÷ plain)': { n: '', ...rename(latency.ratio) },
  });
  console.log(`429s: amsflow ${latency.status429.amsflow}, plain ${latency.status429.plain}`);
  if (latency.breakdown) {
    console.log(
      `amsflow breakdown from the agent workflow's history (${latency.breakdown.matched} messages, ms):`,
    );
    console.table(
      Object.fromEntries(Object.entries(latency.breakdown.steps).map(([step, p]) => [step, row(p)])),
    );
    const { asked, firedAfter } = latency.breakdown.shortTimers;
    console.log(
      `short timers of the agent workflow (receipt settle; no poll open while one runs): ${asked.n}, ` +
        `asked p50 ${asked.p50Ms} ms, fired after p50 ${firedAfter.p50Ms} ms, p95 ${firedAfter.p95Ms} ms`,
    );
  }
}

const rename = (r: { p50: number; p95: number; p99: number }) => ({ p50: r.p50, p95: r.p95, p99: r.p99 });

export function printLiveChat(live: LiveChatResult | { error: string }): void {
  if ('error' in live) {
    console.log(`live chat: not measured (${live.error})`);
    return;
  }
  console.log(
    `\nlive chat, amsflow (${live.scale}), ${live.messages} messages, ${live.repliesSent} replies (ms):`,
  );
  console.table({
    'pick-up (wrote → handler started)': {
      p50: live.pickup.p50Ms,
      p95: live.pickup.p95Ms,
      max: live.pickup.maxMs,
    },
    'wrote → second reply accepted': {
      p50: live.bothReplies.p50Ms,
      p95: live.bothReplies.p95Ms,
      max: live.bothReplies.maxMs,
    },
  });
  console.log(
    `429s: updates ${live.status429.updates}, messages ${live.status429.messages}, all ${live.status429.total}`,
  );
}
