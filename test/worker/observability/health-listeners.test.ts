/**
 * The agent checks leave nothing behind on the monitor's signal: the SDK adds an abort listener
 * for every call it is given a signal for and never removes it, so calls on one long-lived signal
 * would pile up (a leak; Node's MaxListenersExceededWarning on `npm start` after a minute). Against
 * the shared dev server, with an agent workflow no worker serves (its describe answers, its query
 * runs into the check's deadline).
 */
import { Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { AgentHealthMonitor } from '../../../worker/observability/agent-health';
import { connectDevServer } from '../../support/temporal';

it('twelve checks of an agent add no listener that outlives its call', async () => {
  const temporal = await connectDevServer();
  const agentKey = `health-listeners-${randomUUID().slice(0, 8)}`;
  const handle = await temporal.client.workflow.start('nothing', {
    taskQueue: `nobody-${agentKey}`,
    workflowId: `agent:${agentKey}`,
  });
  const monitor = new AgentHealthMonitor({
    client: new Client({ connection: temporal.connection }),
    agentKeys: [agentKey],
    timeoutMs: 300,
  });
  try {
    for (let i = 0; i < 12; i++) {
      const [health] = await monitor.check();
      // The query had no worker to answer it: the check says so, it does not hang.
      expect(health.status).toBe('unknown');
    }
    // The monitor's own signal (what stops every check) holds no listener between checks.
    const stopping = (monitor as unknown as { abort: AbortController }).abort.signal;
    expect(getEventListeners(stopping, 'abort')).toHaveLength(0);
  } finally {
    await monitor.stop();
    await handle.terminate('test over');
    await temporal.close();
  }
});
