/**
 * The health check's cost (issue 40): it asks an agent's state (a query, a billed action on
 * Temporal Cloud) only when no poll of the agent is open. A real amsflow in process on the shared
 * dev server, its agent idle with a quiet poll open; the check counted at the client's handles.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import { agentWorkflowId } from '../../../protocol/agent';
import { AgentHealthMonitor, pollIsOpen } from '../../../worker/observability/agent-health';
import { startAmsflowRun, type AmsflowRun } from '../../protocol/running-amsflow';
import { waitFor } from '../../support/temporal';

jest.setTimeout(120_000);

let run: AmsflowRun | undefined;

afterAll(async () => {
  await run?.close();
});

/** Counts the queries made through `client`'s handles (the real handles answer them). */
function countQueries(client: Client): { count: () => number } {
  let queries = 0;
  const getHandle = client.workflow.getHandle.bind(client.workflow);
  jest.spyOn(client.workflow, 'getHandle').mockImplementation((...args: Parameters<typeof getHandle>) => {
    const handle = getHandle(...args);
    const query = handle.query.bind(handle);
    handle.query = ((...q: Parameters<WorkflowHandle['query']>) => {
      queries++;
      return query(...q);
    }) as WorkflowHandle['query'];
    return handle;
  });
  return { count: () => queries };
}

it('asks no query of an agent whose poll is open; once its polls are refused and it stops, asks and reports it', async () => {
  run = await startAmsflowRun();
  await run.human('echo warm');
  await run.botSaid('warm');
  const { ownClient, agentKey } = run;
  const agent = ownClient.workflow.getHandle(agentWorkflowId(agentKey));
  await waitFor('a poll to be open', async () => pollIsOpen((await agent.describe()).raw.pendingActivities));

  const queries = countQueries(ownClient);
  const monitor = new AgentHealthMonitor({ client: ownClient, agentKeys: [agentKey] });
  try {
    // A check while the poll is open asks nothing (a poll ending just then, as a quiet poll may,
    // makes that check ask: the next one does not). With the skip removed, every check asks.
    const healthy = await waitFor('a check that asked no query', async () => {
      const before = queries.count();
      const [health] = await monitor.check();
      return queries.count() === before && health;
    });
    expect(healthy).toMatchObject({ agentKey, status: 'ok' });

    await run.sim.control.fault('updates', { kind: 'bad_token' }, { count: 1000, agent: agentKey });
    const stopped = await waitFor(
      'the check to report the agent unauthorized',
      async () => {
        const [health] = await monitor.check();
        return health.status === 'unauthorized' && health;
      },
      { timeoutMs: 40_000 },
    );
    expect(stopped.reason).toContain(`the token of agent ${agentKey} was refused`);
    expect(queries.count()).toBeGreaterThan(0);
  } finally {
    await monitor.stop();
    jest.restoreAllMocks();
  }
});
