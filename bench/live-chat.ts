/**
 * Live chat: one agent (`twice <n>` of test/engine/workflows.ts: two replies to each message) at
 * the simulator's limits with their window `windowMs` (the spec's minute in a full run, 6 s
 * scaled to a tenth), the human writing every `cadenceMs` (6 s; 0.6 s scaled), receipts coming
 * back quickly and waking the poll. Figures: inbound pick-up (human wrote → its handler workflow
 * started) p50/p95, wrote → second reply accepted, the 429s, and every poll and send over time.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { startSimulator, type RunningSimulator, type Transcript } from '../simulator';
import type { RunningAmsflow } from '../worker/run';
import { scaledTuning } from './scaled-tuning';
import { startAmsflowAgent, type BenchTemporal } from './latency';
import { percentiles, type Percentiles } from './percentiles';
import { waitUntil } from './wait-until';

export const LIVE_CHAT_SCALE = 'scaled 1/10: windowMs 6000, human every 0.6 s, two replies each';

export interface LiveChatResult {
  scale: string;
  messages: number;
  windowMs: number;
  cadenceMs: number;
  pickup: Percentiles;
  /** Human wrote → second reply accepted. */
  bothReplies: Percentiles;
  repliesSent: number;
  status429: { updates: number; messages: number; total: number };
  /** Real epoch ms of every poll and send the service answered, and their limits per window. */
  timeline: {
    polls: number[];
    sends: number[];
    limits: { updates: number; messages: number };
    windowMs: number;
  };
}

type Written = { id: string; text: string; at: number };

/** `twice <i>` every `cadenceMs`, i = 1 … messages. */
async function writeChat(sim: RunningSimulator, agent: string, messages: number, cadenceMs: number) {
  const written: Written[] = [];
  const start = Date.now();
  for (let i = 1; i <= messages; i++) {
    await new Promise((r) => setTimeout(r, Math.max(0, start + (i - 1) * cadenceMs - Date.now())));
    const at = Date.now();
    const { id } = await sim.control.humanText(`twice ${i}`, { agent });
    written.push({ id, text: String(i), at });
  }
  return written;
}

/** Pick-up (wrote → handler started, from Temporal) and wrote → second reply, per message. */
async function chatLatencies(
  temporal: BenchTemporal,
  agent: string,
  written: Written[],
  transcript: Transcript,
) {
  const pickup: number[] = [];
  const both: number[] = [];
  const acceptedAt = new Map<string, number>();
  for (const s of transcript.sent) {
    const body = (s.body as { text?: { body?: string } }).text?.body;
    if (body !== undefined) acceptedAt.set(body, s.realAt);
  }
  for (const w of written) {
    const started = await temporal.client.workflow
      .getHandle(`agent:${agent}:msg:${w.id}`)
      .describe()
      .then((d) => d.startTime.getTime())
      .catch(() => undefined);
    if (started !== undefined) pickup.push(started - w.at);
    const second = acceptedAt.get(`${w.text} (2)`);
    if (second !== undefined) both.push(second - w.at);
  }
  return { pickup: percentiles(pickup), bothReplies: percentiles(both) };
}

/** One agent of the `twice` bot on its own simulator at the limits of window `windowMs`; polling. */
async function startLiveAgent(temporal: BenchTemporal, windowMs: number) {
  const agent = {
    id: `live-${randomUUID().slice(0, 8)}`,
    token: `token-${randomUUID()}`,
    creator: 'user:4242',
  };
  const sim = await startSimulator({
    port: 0,
    limits: { windowMs },
    receipts: { deliveredAfterMs: 50, readAfterMs: 150 },
    agents: [agent],
  });
  const stop = async (amsflow?: RunningAmsflow) => {
    await amsflow?.shutdown();
    await temporal.client.workflow
      .getHandle(`agent:${agent.id}`)
      .terminate('bench over')
      .catch(() => undefined);
    await sim.close();
  };
  let amsflow: RunningAmsflow | undefined;
  try {
    amsflow = await startAmsflowAgent({
      temporalAddress: temporal.address,
      sim,
      agentKey: agent.id,
      token: agent.token,
      limits: { windowMs },
      // At full scale the defaults (the spec's); scaled, as the engine suites scale the tuning.
      tuning: windowMs >= 60_000 ? undefined : scaledTuning(windowMs),
      workflows: resolve(__dirname, '..', 'test', 'engine', 'workflows.ts'),
    });
    const polled = async () =>
      (await sim.control.transcript({ agent: agent.id })).counts.requests.updates > 0;
    await waitUntil('the agent to poll', polled, 60_000);
  } catch (err) {
    await stop(amsflow);
    throw err;
  }
  const running = amsflow;
  return { agentKey: agent.id, sim, stop: () => stop(running) };
}

export async function measureLiveChat(
  temporal: BenchTemporal,
  {
    messages,
    windowMs = 6000,
    cadenceMs = 600,
    scale = LIVE_CHAT_SCALE,
  }: { messages: number; windowMs?: number; cadenceMs?: number; scale?: string },
): Promise<LiveChatResult> {
  const { agentKey, sim, stop } = await startLiveAgent(temporal, windowMs);
  try {
    const transcript = () => sim.control.transcript({ agent: agentKey });
    const written = await writeChat(sim, agentKey, messages, cadenceMs);
    const t = await waitUntil(
      `${messages * 2} replies`,
      async () => {
        const now = await transcript();
        return now.sent.length >= messages * 2 && now;
      },
      windowMs >= 60_000 ? 600_000 : 120_000,
    ).catch((err: Error) => {
      console.error(err.message);
      return transcript();
    });
    const c = t.counts.status429;
    const log = await sim.control.log(agentKey);
    const at = (endpoint: string) => log.filter((e) => e.endpoint === endpoint).map((e) => e.at);
    return {
      scale,
      messages,
      windowMs,
      cadenceMs,
      ...(await chatLatencies(temporal, agentKey, written, t)),
      repliesSent: t.sent.length,
      status429: {
        updates: c.updates,
        messages: c.messages,
        total: Object.values(c).reduce((a, b) => a + b, 0),
      },
      timeline: {
        polls: at('updates'),
        sends: at('messages'),
        limits: { updates: 15, messages: 12 },
        windowMs,
      },
    };
  } finally {
    await stop();
  }
}
