/**
 * Live chat, scaled to a tenth: the simulator's limits with `windowMs` 6000 (the spec's minute
 * / 10), the human writes every 0.5 s (5 s at full scale), each message gets two replies
 * (`twice <text>` of test/engine/workflows.ts), receipts come back quickly and wake the poll.
 * Figures: inbound pick-up (human wrote → its handler workflow started) p50/p95, and the 429s.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { startSimulator } from '../simulator';
import type { RunningAmsflow } from '../worker/run';
import { scaledTuning } from './scaled-tuning';
import { percentiles, startAmsflowAgent, waitUntil, type BenchTemporal, type Percentiles } from './latency';

export const LIVE_CHAT_SCALE = 'scaled 1/10: windowMs 6000, human every 0.5 s, two replies each';

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

export async function measureLiveChat(
  temporal: BenchTemporal,
  {
    messages,
    windowMs = 6000,
    cadenceMs = 500,
    scale = LIVE_CHAT_SCALE,
  }: { messages: number; windowMs?: number; cadenceMs?: number; scale?: string },
): Promise<LiveChatResult> {
  const fullScale = windowMs >= 60_000;
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
  let amsflow: RunningAmsflow | undefined;
  try {
    amsflow = await startAmsflowAgent({
      temporalAddress: temporal.address,
      sim,
      agentKey: agent.id,
      token: agent.token,
      limits: { windowMs },
      // At full scale the defaults (the spec's); scaled, as the engine suites scale the tuning.
      tuning: fullScale ? undefined : scaledTuning(windowMs),
      workflows: resolve(__dirname, '..', 'test', 'engine', 'workflows.ts'),
    });
    await waitUntil(
      'the agent to poll',
      async () => (await sim.control.transcript({ agent: agent.id })).counts.requests.updates > 0,
      60_000,
    );
    const written: { id: string; text: string; at: number }[] = [];
    const start = Date.now();
    for (let i = 1; i <= messages; i++) {
      await new Promise((r) => setTimeout(r, Math.max(0, start + (i - 1) * cadenceMs - Date.now())));
      const at = Date.now();
      const { id } = await sim.control.human({ agent: agent.id, type: 'text', text: { body: `twice ${i}` } });
      written.push({ id, text: String(i), at });
    }
    const transcript = await waitUntil(
      `${messages * 2} replies`,
      async () => {
        const t = await sim.control.transcript({ agent: agent.id });
        return t.sent.length >= messages * 2 && t;
      },
      fullScale ? 600_000 : 120_000,
    ).catch(async (err: Error) => {
      console.error(err.message);
      return sim.control.transcript({ agent: agent.id });
    });
    const pickup: number[] = [];
    const both: number[] = [];
    const acceptedAt = new Map<string, number>();
    for (const s of transcript.sent) {
      const body = (s.body as { text?: { body?: string } }).text?.body;
      if (body !== undefined) acceptedAt.set(body, s.realAt);
    }
    for (const w of written) {
      const started = await temporal.client.workflow
        .getHandle(`agent:${agent.id}:msg:${w.id}`)
        .describe()
        .then((d) => d.startTime.getTime())
        .catch(() => undefined);
      if (started !== undefined) pickup.push(started - w.at);
      const second = acceptedAt.get(`${w.text} (2)`);
      if (second !== undefined) both.push(second - w.at);
    }
    const c = transcript.counts.status429;
    const log = await sim.control.log(agent.id);
    const at = (endpoint: string) => log.filter((e) => e.endpoint === endpoint).map((e) => e.at);
    return {
      scale,
      messages,
      windowMs,
      cadenceMs,
      pickup: percentiles(pickup),
      bothReplies: percentiles(both),
      repliesSent: transcript.sent.length,
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
    await amsflow?.shutdown();
    await temporal.client.workflow
      .getHandle(`agent:${agent.id}`)
      .terminate('bench over')
      .catch(() => undefined);
    await sim.close();
  }
}
