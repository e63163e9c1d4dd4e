/**
 * Recovery: a worker process serving one agent is killed with SIGKILL while the human writes; a
 * new worker process starts at once. Measured: kill → the reply to a message written just after
 * the kill is accepted by the service, and how much of that the new process's start took. The
 * worker runs as `npm start` runs it (ts-node) or, given `compiledMain`, as the image runs it
 * (`node dist/worker/main.js`: what a deployment restarts).
 */
import { randomUUID } from 'node:crypto';
import { startSimulator } from '../simulator';
import { collectEchoes, writeEchoes } from './chat-traffic';
import type { BenchTemporal } from './latency';
import { raisedLimits } from './scaled-tuning';
import { startBenchWorker } from './worker-process';

const LIMITS = raisedLimits(1000);

export interface RecoveryRun {
  /** SIGKILL → the echo written right after it was accepted. */
  killToReplyMs: number;
  /** Spawn → `amsflow: running` of the new worker process. */
  workerStartMs: number;
  /** The new worker running → that echo accepted. */
  runningToReplyMs: number;
}

export interface RecoveryResult {
  runs: RecoveryRun[];
  workflowBundle: boolean;
  /** The worker ran compiled (the image's `node dist/worker/main.js`), not under ts-node. */
  compiled?: boolean;
}

export async function measureRecovery(
  temporal: BenchTemporal,
  { kills, workflowBundle, compiledMain }: { kills: number; workflowBundle?: string; compiledMain?: string },
): Promise<RecoveryResult> {
  const agent = {
    id: `rec-${randomUUID().slice(0, 6)}`,
    token: `token-${randomUUID()}`,
    creator: 'user:4242',
  };
  const sim = await startSimulator({ port: 0, limits: LIMITS, agents: [agent] });
  const options = {
    temporalAddress: temporal.address,
    simulatorUrl: sim.url,
    agents: [{ agentKey: agent.id, token: agent.token }],
    taskQueue: `recovery-${agent.id}`,
    limits: LIMITS,
    workflowBundle,
    compiledMain,
  };
  let worker = await startBenchWorker(options);
  const runs: RecoveryRun[] = [];
  try {
    const warm = await collectEchoes(
      sim,
      await writeEchoes(sim, [agent.id], { rate: 1, count: 1, tag: 'w' }),
      60_000,
    );
    if (warm.answered !== 1) throw new Error('recovery: the warm-up echo was not answered');
    for (let k = 0; k < kills; k++) {
      const killedAt = Date.now();
      await worker.kill();
      const [written] = await writeEchoes(sim, [agent.id], { rate: 1, count: 1, tag: `k${k}-` });
      const spawned = Date.now();
      worker = await startBenchWorker(options);
      const running = spawned + worker.startupMs;
      const echo = await collectEchoes(sim, [written], 120_000);
      if (echo.answered !== 1) throw new Error(`recovery: the echo after kill ${k + 1} was not answered`);
      const acceptedAt = written.at + echo.samples[0];
      runs.push({
        killToReplyMs: acceptedAt - killedAt,
        workerStartMs: worker.startupMs,
        runningToReplyMs: acceptedAt - running,
      });
    }
  } finally {
    await worker.stop().catch(() => undefined);
    await temporal.client.workflow
      .getHandle(`agent:${agent.id}`)
      .terminate('bench over')
      .catch(() => undefined);
    await sim.close();
  }
  return { runs, workflowBundle: workflowBundle !== undefined, compiled: compiledMain !== undefined };
}
