import { waitFor } from '../support/temporal';
import { recordHistory } from '../support/histories';
import { engineSuite, type Engine, type WorkerProcess } from './support';

const MESSAGES = 200;
const KILLS = 6;

/** What is missing and where it is stuck, for a failure message. */
async function diagnose(engine: Engine, ids: string[], worker: WorkerProcess): Promise<string> {
  const texts = await engine.sentTexts();
  const missing = ids.filter((_, i) => !texts.includes(String(i + 1)));
  const lines = [`sent ${texts.length}, missing ${missing.length}`];
  for (const id of missing.slice(0, 3)) {
    const handle = engine.client.workflow.getHandle(engine.handlerWorkflowId(id));
    const description = await handle.describe().catch((e: Error) => ({ status: { name: e.message } }));
    lines.push(`${id}: handler ${description.status.name}`);
    if (description.status.name === 'FAILED') {
      lines.push(
        String(await handle.result().catch((e: Error & { cause?: Error }) => e.cause?.message ?? e.message)),
      );
    }
  }
  const state = await engine.client.workflow
    .getHandle(engine.agentWorkflowId)
    .query('amsflow.state')
    .catch(String);
  lines.push(`agent state: ${JSON.stringify(state)}`);
  lines.push(`log tail: ${JSON.stringify((await engine.sim.control.log(engine.agentKey)).slice(-5))}`);
  lines.push(`worker output tail:\n${worker.output.slice(-20).join('\n')}`);
  return lines.join('\n');
}

describe('exactly once under crashes', () => {
  const suite = engineSuite();

  it(`answers ${MESSAGES} echo messages exactly once, in order, while the worker is SIGKILLed ${KILLS} times`, async () => {
    const engine = await suite.start({ windowMs: 1000 });
    let worker: WorkerProcess = await engine.startWorker();

    const ids: string[] = [];
    const human = (async () => {
      for (let i = 1; i <= MESSAGES; i++) {
        ids.push(await engine.human(`echo ${i}`));
        await new Promise((r) => setTimeout(r, 40));
      }
    })();

    const killedAt: number[] = [];
    /** Real epoch ms each killed worker was gone by. */
    const killTimes: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      // A random moment: somewhere in the middle of polling, routing, handling or sending.
      await new Promise((r) => setTimeout(r, 1000 + Math.random() * 2500));
      killedAt.push((await engine.transcript()).sent.length);
      await worker.kill();
      killTimes.push(Date.now());
      worker = await engine.startWorker();
    }
    await human;

    const transcript = await waitFor(
      `${MESSAGES} replies`,
      async () => {
        const t = await engine.transcript();
        return t.sent.length >= MESSAGES && t;
      },
      { timeoutMs: 180_000, intervalMs: 500 },
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await diagnose(engine, ids, worker)}`);
    });
    // Kills landed while replies were going out, not only before or after.
    expect(killedAt.some((n) => n > 0 && n < MESSAGES)).toBe(true);

    const replies = transcript.sent.map(
      (s) => s.body as { text: { body: string }; context?: { message_id: string } },
    );
    expect(replies.map((r) => r.text.body)).toEqual(
      Array.from({ length: MESSAGES }, (_, i) => String(i + 1)),
    );
    expect(replies.map((r) => r.context?.message_id)).toEqual(ids);
    expect(transcript.counts.accepted).toBe(MESSAGES);
    expect(transcript.counts.overlappingSends).toBe(0);

    // The offset resumed after every restart: polls went back in the sequence only across a kill,
    // and then by less than a page (a poll whose answer its killed worker never reported is made
    // again from the offset the workflow holds, as the spec's poll loop reuses the prior offset).
    const polls = (await engine.sim.control.log(engine.agentKey))
      .filter((e) => e.endpoint === 'updates' && e.status !== 0)
      .map((e) => ({ at: e.at, offset: Number(new URL(e.path, 'http://x').searchParams.get('offset')) }));
    const offsets = polls.map((p) => p.offset);
    expect(offsets.length).toBeGreaterThan(KILLS);
    expect(Math.max(...offsets)).toBeGreaterThanOrEqual(MESSAGES);
    for (let i = 1; i < polls.length; i++) {
      if (polls[i].offset >= polls[i - 1].offset) continue;
      const acrossKill = killTimes.some((k) => k > polls[i - 1].at && k <= polls[i].at);
      const back = polls[i - 1].offset - polls[i].offset;
      expect({ i, acrossKill, withinAPage: back < 50 }).toEqual({ i, acrossKill: true, withinAPage: true });
    }
    const state = await engine.client.workflow.getHandle(engine.agentWorkflowId).query('amsflow.state');
    expect((state as { offset: number }).offset).toBeGreaterThanOrEqual(MESSAGES);
    await recordHistory(engine.client.workflow.getHandle(engine.agentWorkflowId), 'agent-crash-200');
  }, 300_000);
});
