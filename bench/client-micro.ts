/**
 * The client's own figures: sequential sends and polls through `MessagingClient` against the
 * simulator over real HTTP (limits raised so that the service's pacing does not hide the
 * client's cost), and one `SlidingWindow` pacing step (the agent workflow's per-request rule).
 */
import { MessagingClient } from '../messaging/client';
import { SlidingWindow } from '../core/sliding-window';
import { startSimulator } from '../simulator';
import { raisedLimits } from './scaled-tuning';

export interface Timed {
  n: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export interface ClientFigures {
  client: { sendText: Timed; getUpdates: Timed };
  pacing: { slidingWindowNsPerRequest: number };
}

async function timeEach(n: number, fn: () => Promise<unknown>): Promise<Timed> {
  const times: number[] = [];
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const totalS = Number(process.hrtime.bigint() - start) / 1e9;
  times.sort((a, b) => a - b);
  const at = (p: number) =>
    +times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))].toFixed(2);
  return { n, perSecond: Math.round(n / totalS), p50Ms: at(50), p99Ms: at(99) };
}

/** Nanoseconds a `delay` + `record` pair of the pacing rule takes. */
function pacingStep(): number {
  const window = new SlidingWindow(12, 60_000);
  const ops = 1_000_000;
  const t0 = process.hrtime.bigint();
  let now = 0;
  for (let i = 0; i < ops; i++) {
    now += 5000 + window.delay(now);
    window.record(now);
  }
  return +(Number(process.hrtime.bigint() - t0) / ops).toFixed(1);
}

export async function measureClient(): Promise<ClientFigures> {
  const limits = raisedLimits(1_000_000);
  const sim = await startSimulator({ port: 0, limits });
  const client = new MessagingClient({ token: sim.token, baseUrl: sim.url, limits });
  try {
    await client.discoverRecipient();
    const sendText = await timeEach(500, () => client.sendText('benchmark'));
    const getUpdates = await timeEach(300, () => client.getUpdates({ offset: 0, limit: 50, timeout: 0 }));
    return { client: { sendText, getUpdates }, pacing: { slidingWindowNsPerRequest: pacingStep() } };
  } finally {
    await client.close();
    await sim.close();
  }
}
