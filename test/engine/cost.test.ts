/**
 * What a message costs Temporal, from real histories (bench/message-cost.ts counts them): an
 * echo of the reference bot, all workflows together, stays within 6 workflow tasks, 30 history
 * events and 5 billable actions. A change that adds a hop (a signal back to the handler, a
 * receipt that wakes the agent, a mark-read activity of its own, a timer) fails here.
 */
import { agentEvents, addCounts, countEvents, perUnit, workflowCounts } from '../../bench/message-cost';
import { waitFor } from '../support/temporal';
import { engineSuite, type Engine } from './support';

jest.setTimeout(240_000);

const ECHOES = 5;

/** The human writes `echo <n>` and waits for the answer, then for its receipts to settle. */
async function echo(engine: Engine, n: number): Promise<string> {
  const t0 = Date.now();
  const id = await engine.human(`echo cost ${n}`);
  await waitFor(`echo ${n}`, async () => (await engine.sentTexts()).includes(`cost ${n}`), {
    timeoutMs: 30_000,
  });
  const t1 = Date.now();
  // The human reads it: a 'read' receipt, as in a live chat.
  const sent = (await engine.transcript()).sent.at(-1)!;
  await engine.sim.control.read({ id: sent.id, agent: engine.agentKey });
  await waitFor(`message ${n} marked read`, async () =>
    (await engine.transcript()).inbound.find((m) => m.id === id)?.markedRead ? true : undefined,
  );
  console.log(`echo ${n}: reply ${t1 - t0} ms, marked read ${Date.now() - t0} ms`);
  return id;
}

describe('the cost of a message', () => {
  const suite = engineSuite();

  it('an echo costs at most 6 workflow tasks, 30 history events and 5 billable actions', async () => {
    const engine = await suite.start({ windowMs: 60_000 });
    await engine.startWorker();
    // The agent is up and polling (its first poll and the discovery are not the echoes' cost).
    await echo(engine, 0);
    await new Promise((r) => setTimeout(r, 3000));
    const from = Date.now();
    const ids: string[] = [];
    for (let n = 1; n <= ECHOES; n++) {
      ids.push(await echo(engine, n));
      // Receipts of this echo ('sent', 'delivered', 'read') come in before the next one.
      await new Promise((r) => setTimeout(r, 3000));
    }
    const to = Date.now();
    if (process.env.COST_DEBUG) {
      const log = await engine.sim.control.log(engine.agentKey);
      const t = await engine.transcript();
      const events = [
        ...log.map((l) => ({ at: l.at, what: `${l.method} ${l.path} -> ${l.status}` })),
        ...t.inbound.map((m) => ({ at: (m as { realAt?: number }).realAt ?? 0, what: `human ${m.id}` })),
      ].sort((a, b) => a.at - b.at);
      console.log(events.map((e) => `${e.at - from} ${e.what}`).join('\n'));
    }
    const agent = countEvents(await agentEvents(engine.client, engine.agentKey, from, to));
    const handlers = addCounts(
      await workflowCounts(
        engine.client,
        ids.map((id) => engine.handlerWorkflowId(id)),
      ),
    );
    const perEcho = perUnit(addCounts([agent, handlers]), ECHOES);
    console.log(
      `cost of an echo: ${JSON.stringify(perEcho)} (agent ${JSON.stringify(perUnit(agent, ECHOES))})`,
    );
    expect(perEcho.workflowTasks).toBeLessThanOrEqual(6);
    expect(perEcho.events).toBeLessThanOrEqual(30);
    expect(perEcho.actions).toBeLessThanOrEqual(5);
    // And every echo was answered once.
    const texts = await engine.sentTexts();
    for (let n = 1; n <= ECHOES; n++) expect(texts.filter((t) => t === `cost ${n}`)).toHaveLength(1);
  });
});
