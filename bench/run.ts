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
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MessagingClient } from '../messaging/client';
import { startSimulator } from '../simulator';
import { SlidingWindow } from '../workflows/agent/sliding-window';
import { measureAddedLatency, startBenchTemporal, type LatencyResult } from './latency';
import { LIVE_CHAT_SCALE, measureLiveChat, type LiveChatResult } from './live-chat';

const quick = process.argv.includes('--quick');

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
    const temporal = await startBenchTemporal();
    try {
      latency = await measureAddedLatency(temporal, { messages: quick ? 30 : 100, spacingMs: 2000 }).catch(
        (err: Error) => ({ error: err.message }),
      );
      liveChat = await measureLiveChat(temporal, { messages: quick ? 16 : 48 }).catch((err: Error) => ({
        error: err.message,
      }));
    } finally {
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
      memoryMb: {
        rss: +(memory.rss / 2 ** 20).toFixed(1),
        heapUsed: +(memory.heapUsed / 2 ** 20).toFixed(1),
      },
    };
    writeFileSync(join(__dirname, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
    console.table({
      'sendText (sequential)': send,
      'getUpdates page of 50': poll,
    });
    console.log(
      `pacing step: ${results.pacing.slidingWindowNsPerRequest} ns; memory: ${JSON.stringify(results.memoryMb)} MB`,
    );
    printLatency(latency);
    printLiveChat(liveChat);
  } finally {
    await client.close().catch(() => undefined); // closed already after the client figures
    await sim.close();
  }
}

function printLatency(latency: LatencyResult | { error: string }): void {
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

function printLiveChat(live: LiveChatResult | { error: string }): void {
  if ('error' in live) {
    console.log(`live chat: not measured (${live.error})`);
    return;
  }
  console.log(
    `\nlive chat, amsflow (${LIVE_CHAT_SCALE}), ${live.messages} messages, ${live.repliesSent} replies (ms):`,
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

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
