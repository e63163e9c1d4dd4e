/**
 * `npm run bench`: figures for the parts whose speed matters, on this machine.
 *  - client: sequential sends and polls through MessagingClient against the simulator over real
 *    HTTP (limits raised so that the service's pacing does not hide the client's own cost);
 *  - pacing: SlidingWindow.delay/record, the agent workflow's per-request pacing step;
 *  - memory: heap and RSS after the client runs;
 *  - latency (bench/latency.ts): added latency of durability, amsflow vs a plain loop, side by side;
 *  - live chat (bench/live-chat.ts): inbound pick-up and 429s, scaled to a tenth.
 * `--quick`: fewer messages (finishes in under 3 minutes). Writes bench/results.json and prints
 * summary tables. Slow figures are reported, never a failure.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MessagingClient } from '../messaging/client';
import { startSimulator } from '../simulator';
import { SlidingWindow } from '../core/sliding-window';
import { measureAddedLatency, startBenchTemporal, type LatencyResult } from './latency';
import { measureFleet, type FleetResult } from './fleet';
import { measureLiveChat, type LiveChatResult } from './live-chat';
import { writePlots } from './plots';
import { fleetPoint, printFleet, printLatency, printLiveChat, printRecovery, printSoak } from './print';
import { writeReportFigures } from './report';
import { measureSoak, type SoakResult } from './soak';
import { measureRecovery, type RecoveryResult } from './recovery';
import { measureSendBudget, printSendBudget, type SendBudgetResult } from './send-budget';
import { prebuildReferenceBundle } from './worker-process';

const quick = process.argv.includes('--quick');
const startedAt = Date.now();

/** The value after `name` on the command line (`--soak 10000`). */
function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** One progress line, with the time since the start. */
function progress(line: string): void {
  console.log(`[bench ${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)} s] ${line}`);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timeEach(
  n: number,
  fn: () => Promise<unknown>,
): Promise<{ n: number; perSecond: number; p50Ms: number; p99Ms: number }> {
  const times: number[] = [];
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const totalS = Number(process.hrtime.bigint() - start) / 1e9;
  times.sort((a, b) => a - b);
  return {
    n,
    perSecond: Math.round(n / totalS),
    p50Ms: +percentile(times, 50).toFixed(2),
    p99Ms: +percentile(times, 99).toFixed(2),
  };
}

async function main(): Promise<void> {
  const big = 1_000_000;
  const limits = {
    messages: big,
    statuses: big,
    typing: big,
    updates: big,
    mediaUpload: big,
    mediaGet: big,
    mediaDelete: big,
  };
  const sim = await startSimulator({ port: 0, limits });
  const client = new MessagingClient({ token: sim.token, baseUrl: sim.url, limits });
  try {
    await client.discoverRecipient();
    const send = await timeEach(500, () => client.sendText('benchmark'));
    const poll = await timeEach(300, () => client.getUpdates({ offset: 0, limit: 50, timeout: 0 }));

    const window = new SlidingWindow(12, 60_000);
    const ops = 1_000_000;
    const t0 = process.hrtime.bigint();
    let now = 0;
    for (let i = 0; i < ops; i++) {
      now += 5000 + window.delay(now);
      window.record(now);
    }
    const pacingNsPerOp = Number(process.hrtime.bigint() - t0) / ops;

    await client.close();
    await sim.close();

    let latency: LatencyResult | { error: string };
    let liveChat: LiveChatResult | { error: string };
    let sendBudget: SendBudgetResult | { error: string };
    let fleet: FleetResult | { error: string };
    let recovery: RecoveryResult | { error: string };
    let liveChatFull: LiveChatResult | { error: string } | undefined;
    let soak: SoakResult | { error: string } | undefined;
    const failed = (err: Error) => ({ error: err.message });
    const temporal = await startBenchTemporal();
    const bundle = await prebuildReferenceBundle();
    try {
      progress('latency: amsflow and the plain loop');
      latency = await measureAddedLatency(temporal, { messages: quick ? 30 : 100, spacingMs: 2000 }).catch(
        failed,
      );
      progress('live chat (scaled)');
      liveChat = await measureLiveChat(temporal, { messages: quick ? 16 : 48 }).catch(failed);
      progress('send budget: 40 sends at once, 12 per 6 s');
      sendBudget = await measureSendBudget(temporal, { sends: 40, windowMs: 6000, limit: 12 }).catch(failed);
      fleet = await measureFleet(temporal, {
        agentCounts: quick ? [1, 10, 100] : [1, 10, 100, 1000],
        idleMs: quick ? 15_000 : 30_000,
        lowRate: { perSecond: 1, messages: quick ? 15 : 30 },
        ladder: {
          agents: 100,
          rates: quick ? [2, 5, 10] : [2, 5, 10, 15, 20, 30],
          secondsPerStep: quick ? 10 : 20,
        },
        workflowBundle: bundle.file,
        progress,
      }).catch(failed);
      progress('recovery after SIGKILL');
      recovery = await measureRecovery(temporal, { kills: quick ? 2 : 5, workflowBundle: bundle.file }).catch(
        failed,
      );
      if (!quick) {
        progress(
          'live chat at full scale: the spec’s limits, the human every 5 s, 24 messages (about 5 minutes)',
        );
        liveChatFull = await measureLiveChat(temporal, {
          messages: 24,
          windowMs: 60_000,
          cadenceMs: 5000,
          scale: 'full scale: the spec’s limits, human every 5 s, two replies each',
        }).catch(failed);
      }
      const soakMessages = Number(option('--soak') ?? (quick ? 0 : 2000));
      if (soakMessages > 0) {
        progress(`history soak: ${soakMessages} echoes to one agent`);
        soak = await measureSoak(
          temporal,
          { messages: soakMessages, perSecond: 10, workflowBundle: bundle.file },
          progress,
        ).catch(failed);
      }
    } finally {
      bundle.close();
      await temporal.close();
    }

    const memory = process.memoryUsage();
    const results = {
      at: new Date().toISOString(),
      node: process.version,
      client: { sendText: send, getUpdates: poll },
      pacing: { slidingWindowNsPerRequest: +pacingNsPerOp.toFixed(1) },
      mode: quick ? 'quick' : 'full',
      latency,
      liveChat,
      liveChatFull,
      sendBudget,
      fleet,
      recovery,
      soak,
      memoryMb: {
        rss: +(memory.rss / 2 ** 20).toFixed(1),
        heapUsed: +(memory.heapUsed / 2 ** 20).toFixed(1),
      },
    };
    const day = results.at.slice(0, 10);
    mkdirSync(join(__dirname, 'results'), { recursive: true });
    const resultsFile = join(__dirname, 'results', `${day}${quick ? '-quick' : ''}.json`);
    writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
    const plots = writePlots(
      {
        ...results,
        liveChat: liveChatFull && !('error' in liveChatFull) ? liveChatFull : liveChat,
        fleet: 'error' in fleet ? fleet : fleet.rows.map(fleetPoint),
      },
      join(__dirname, 'results', `${day}${quick ? '-quick' : ''}`),
    );
    const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
    await writeReportFigures(join(__dirname, 'REPORT.md'), results, plots, { command, resultsFile });
    console.table({
      'sendText (sequential)': send,
      'getUpdates page of 50': poll,
    });
    console.log(
      `pacing step: ${results.pacing.slidingWindowNsPerRequest} ns; memory: ${JSON.stringify(results.memoryMb)} MB`,
    );
    printLatency(latency);
    printLiveChat(liveChat);
    if (liveChatFull) printLiveChat(liveChatFull);
    printSendBudget(sendBudget);
    printFleet(fleet);
    printRecovery(recovery);
    if (soak) printSoak(soak);
    console.log(`\nresults: ${resultsFile}; figures and plots: bench/REPORT.md`);
  } finally {
    await client.close().catch(() => undefined); // closed already after the client figures
    await sim.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
