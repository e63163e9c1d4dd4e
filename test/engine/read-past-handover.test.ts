/**
 * Receipts a quiet poll read past are not read again when that poll ends without a page: a run
 * that hands over while its quiet poll has read past receipts carries the offset after them (the
 * cancelled poll reports it), so the next run's first poll starts there. The long tier's crash
 * test found the next run polling from the offset the cancelled poll had started at instead,
 * hundreds of receipts back.
 */
import type { temporal } from '@temporalio/proto';
import { sendThroughOutbox } from '../../client/agents';
import { wakeSignal } from '../../protocol/messages';
import { waitFor } from '../support/temporal';
import { engineSuite, type Engine } from './support';

/** The offsets a cancelled poll of these runs reported it had read past to. */
async function readPastAtHandOver(engine: Engine): Promise<number[]> {
  const offsets: number[] = [];
  for await (const run of engine.client.workflow.list({
    query: `WorkflowId = '${engine.agentWorkflowId}'`,
  })) {
    const history = await engine.client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
    for (const e of history.events ?? []) offsets.push(...reportedOffset(e));
  }
  return offsets;
}

function reportedOffset(e: temporal.api.history.v1.IHistoryEvent): number[] {
  const payload = e.activityTaskCanceledEventAttributes?.details?.payloads?.[0];
  if (!payload?.data) return [];
  const report = JSON.parse(Buffer.from(payload.data).toString()) as {
    readPast?: unknown[];
    offsetAfter?: number;
  };
  return report.readPast?.length && report.offsetAfter !== undefined ? [report.offsetAfter] : [];
}

describe('receipts read past at a hand-over', () => {
  const suite = engineSuite();

  it('the next run polls from after the receipts the cancelled quiet poll read past: offsets never go back', async () => {
    const engine = await suite.start({ windowMs: 2000, tuning: { continueAsNewAfterEvents: 120 } });
    await engine.startWorker();
    await waitFor('the agent to poll', async () => (await engine.transcript()).counts.requests.updates > 0);
    const agent = engine.client.workflow.getHandle(engine.agentWorkflowId);
    const text = (body: string) => ({ type: 'text' as const, text: { body } });
    let sent = 0;
    // Sends bring receipts nobody watches (quiet polls read past them) and history (runs roll
    // over); wakes hurry the hand-over while a quiet poll is open.
    const reported = await waitFor(
      'a run to hand over while its quiet poll had read past receipts',
      async () => {
        await Promise.all(
          Array.from({ length: 3 }, () =>
            sendThroughOutbox(engine.client, engine.agentKey, text(`n${++sent}`)),
          ),
        );
        for (let i = 0; i < 3; i++) await agent.signal(wakeSignal);
        const offsets = await readPastAtHandOver(engine);
        return offsets.length > 0 && offsets;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    await engine.human('echo after');
    await waitFor('the reply', async () => (await engine.sentTexts()).includes('after'));

    const polls = (await engine.sim.control.log(engine.agentKey))
      .filter((e) => e.endpoint === 'updates' && e.status !== 0)
      .map((e) => Number(new URL(e.path, 'http://x').searchParams.get('offset')));
    for (let i = 1; i < polls.length; i++) expect(polls[i]).toBeGreaterThanOrEqual(polls[i - 1]);
    // Each offset a cancelled poll reported was polled from (by its run, or by the next one).
    for (const offset of reported) expect(polls).toContain(offset);
    expect((await engine.sentTexts()).filter((t) => /^n\d+$/.test(t))).toHaveLength(sent);
  }, 180_000);
});
