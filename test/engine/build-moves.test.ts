/**
 * The agent workflow follows a deploy without a patch (workflows/author/build-moves.ts): pinned
 * to the build that started its run, it continues as new onto a build made current since, woken by
 * the promotion, with its offset and state; the old build's run replays nothing on the new code.
 */
import { getAgentState } from '../../client/agents';
import { waitFor } from '../support/temporal';
import { engineSuite } from './support';

jest.setTimeout(180_000);

describe('a deploy moves the agent to the new build', () => {
  const suite = engineSuite();

  it('continues as new onto the build made current, at once, keeping its offset', async () => {
    const engine = await suite.start({ windowMs: 4000 });
    await engine.startWorker({ AMSFLOW_BUILD_ID: 'build-1' });
    await engine.human('echo before');
    await waitFor('the first echo', async () => (await engine.sentTexts()).includes('before'), {
      timeoutMs: 60_000,
    });
    const handle = engine.client.workflow.getHandle(engine.agentWorkflowId);
    const first = await handle.describe();
    const versionOf = (d: typeof first) =>
      (d.searchAttributes.TemporalWorkerDeploymentVersion as string[] | undefined)?.[0];
    expect(versionOf(first)).toBe(`${engine.taskQueue}:build-1`);
    const offset = (await getAgentState(engine.client, engine.agentKey))!.offset;

    // The new build's worker makes itself current at its start, which wakes the agent.
    await engine.startWorker({ AMSFLOW_BUILD_ID: 'build-2', AMSFLOW_PROMOTE: 'always' });
    const moved = await waitFor(
      'the agent on build-2',
      async () => {
        const d = await handle.describe();
        return d.runId !== first.runId && versionOf(d) === `${engine.taskQueue}:build-2` && d;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    const old = await engine.client.workflow.getHandle(engine.agentWorkflowId, first.runId).describe();
    expect(old.status.name).toBe('CONTINUED_AS_NEW');
    expect(moved.status.name).toBe('RUNNING');
    // It went on from where it was: the old message is not answered again, a new one is.
    expect((await getAgentState(engine.client, engine.agentKey))!.offset).toBeGreaterThanOrEqual(offset);
    await engine.human('echo after');
    await waitFor('the echo on build-2', async () => (await engine.sentTexts()).includes('after'), {
      timeoutMs: 60_000,
    });
    expect((await engine.sentTexts()).filter((t) => t === 'before')).toHaveLength(1);
  });
});
