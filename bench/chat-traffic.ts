/**
 * Human traffic for the fleet, throughput, recovery and soak sections: `echo <tag><n>` messages
 * spread over many agents of one simulator at a fixed rate, and the latency of each (human wrote
 * → echo accepted by the service, from the simulator's transcript); and the moment every agent
 * of a fleet has polled (the simulator's totals, one request however many agents).
 */
import { mapLimited } from '../core/map-limited';
import type { RunningSimulator } from '../simulator';
import { percentiles, type Percentiles } from './percentiles';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Written {
  agent: string;
  text: string;
  id?: string;
  at: number;
}

/** Writes `count` echoes round-robin over `agents`, `rate` a second, without waiting for answers. */
export async function writeEchoes(
  sim: RunningSimulator,
  agents: string[],
  { rate, count, tag }: { rate: number; count: number; tag: string },
): Promise<Written[]> {
  const start = Date.now();
  const pending: Promise<Written>[] = [];
  for (let i = 0; i < count; i++) {
    await sleep(Math.max(0, start + (i * 1000) / rate - Date.now()));
    const agent = agents[i % agents.length];
    const text = `${tag}${i}`;
    const at = Date.now();
    pending.push(
      sim.control.humanText(`echo ${text}`, { agent }).then(({ id }) => ({ agent, text, id, at })),
    );
  }
  return Promise.all(pending);
}

/** When each agent's replies were accepted, by reply text. */
async function repliesOf(sim: RunningSimulator, agents: string[]): Promise<Map<string, number>> {
  const byText = new Map<string, number>();
  await mapLimited(agents, 32, async (agent) => {
    const t = await sim.control.transcript({ agent });
    for (const s of t.sent) {
      const body = (s.body as { text?: { body?: string } }).text?.body;
      if (body !== undefined && !byText.has(`${agent}\n${body}`)) byText.set(`${agent}\n${body}`, s.realAt);
    }
  });
  return byText;
}

export interface TrafficResult {
  written: number;
  answered: number;
  latency: Percentiles;
  /** The raw latencies (ms), for plots. */
  samples: number[];
}

/** Waits (up to `graceMs` after the last message) for every echo, then measures. */
export async function collectEchoes(
  sim: RunningSimulator,
  written: Written[],
  graceMs: number,
): Promise<TrafficResult> {
  const agents = [...new Set(written.map((w) => w.agent))];
  const deadline = Date.now() + graceMs;
  let replies = await repliesOf(sim, agents);
  const missing = () => written.filter((w) => !replies.has(`${w.agent}\n${w.text}`)).length;
  while (missing() > 0 && Date.now() < deadline) {
    await sleep(500);
    replies = await repliesOf(sim, agents);
  }
  const samples = written
    .filter((w) => replies.has(`${w.agent}\n${w.text}`))
    .map((w) => replies.get(`${w.agent}\n${w.text}`)! - w.at);
  return { written: written.length, answered: samples.length, latency: percentiles(samples), samples };
}

/** Echo traffic over `agents`: `messages` at `perSecond`, then every answer awaited (up to `graceMs`). */
export async function echoTraffic(
  sim: RunningSimulator,
  agents: string[],
  o: { perSecond: number; messages: number; tag: string; graceMs?: number },
): Promise<TrafficResult & { ids: string[] }> {
  const written = await writeEchoes(sim, agents, { rate: o.perSecond, count: o.messages, tag: o.tag });
  const result = await collectEchoes(sim, written, o.graceMs ?? 30_000);
  return { ...result, ids: written.map((w) => w.id!).filter(Boolean) };
}

/** Waits until `count` agents of `sim` have polled at least once (the simulator's totals); resolves when. */
export async function allPolled(sim: RunningSimulator, count: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const polled = (await sim.control.totals()).endpoints.updates.agents;
    if (polled >= count) return Date.now();
    if (Date.now() > deadline)
      throw new Error(`bench: ${polled} of ${count} agents had polled after ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}
