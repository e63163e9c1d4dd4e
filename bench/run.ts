/**
 * `npm run bench`: figures for the parts whose speed matters, on this machine.
 *  - client: sequential sends and polls through MessagingClient against the simulator over real
 *    HTTP (limits raised so that the service's pacing does not hide the client's own cost);
 *  - pacing: SlidingWindow.delay/record, the agent workflow's per-request pacing step;
 *  - memory: heap and RSS after the client runs.
 * Writes bench/results.json and prints a summary table.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MessagingClient } from '../messaging/client';
import { startSimulator } from '../simulator';
import { SlidingWindow } from '../workflows/agent/sliding-window';

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

    const memory = process.memoryUsage();
    const results = {
      at: new Date().toISOString(),
      node: process.version,
      client: { sendText: send, getUpdates: poll },
      pacing: { slidingWindowNsPerRequest: +pacingNsPerOp.toFixed(1) },
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
  } finally {
    await client.close();
    await sim.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
