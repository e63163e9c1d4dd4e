/**
 * Many workers, one fleet, reduced (issue 40, point 3; the long tier runs it at scale): 3 worker
 * processes, each a machine of its own, share 12 agents on the shared dev server, with the
 * windows and timeouts scaled to 2 s. SIGKILL one: each agent whose poll it held polls again on
 * another worker; start it again; SIGTERM another: its agents poll again elsewhere. Every echo is
 * answered exactly once and two polls of an agent are never open at once. The times are printed
 * (docs/RELIABILITY.md), not asserted.
 */
import { runFleetFailover } from '../../chaos/fleet-failover';
import { scaledTuning } from '../../bench/scaled-tuning';
import { prebuildReferenceBundle } from '../../bench/worker-process';
import { connectDevServer, devServerAddress } from '../support/temporal';

jest.setTimeout(600_000);

const WINDOW_MS = 2000;

it('a worker SIGKILLed, started again, another SIGTERMed: their agents poll on the others, every echo answered once, no two polls at once', async () => {
  const temporal = await connectDevServer();
  const bundle = await prebuildReferenceBundle();
  try {
    const result = await runFleetFailover({
      temporal: { address: devServerAddress(), client: temporal.client },
      agents: 12,
      workers: 3,
      limits: { windowMs: WINDOW_MS },
      tuning: scaledTuning(WINDOW_MS),
      workflowBundle: bundle.file,
      progress: (line) => console.log(line),
    });
    console.log(`measured: ${JSON.stringify(result)}`);
    expect(result.killed.agents).toBeGreaterThan(0);
    expect(result.stopped.agents).toBeGreaterThan(0);
    expect(result.echoes).toEqual({ written: 48, answered: 48, doubled: 0 });
    expect(result.concurrentPolls).toBe(0);
  } finally {
    bundle.close();
    await temporal.close();
  }
});
