/** The run step of `runAmsflow`: the workers run together, and one failing ends them all. */
import type { Worker } from '@temporalio/worker';

export interface SupervisedWorkers {
  /** Settles when every worker has stopped: rejects with the first failure, after `finish`. */
  done: Promise<void>;
  /** Asks every running worker to stop (long polls cancelled, work in flight drained). */
  stop(): void;
}

/**
 * Runs `workers`. A half-working process would stay up (health 200, ready 503) and never be
 * restarted; so one worker failing stops the others (after `onFailure`), and the process, ended,
 * exits non-zero and its supervisor starts it again. `finish` runs once all have stopped.
 */
export function superviseWorkers(
  workers: readonly Worker[],
  onFailure: () => void,
  finish: () => Promise<void>,
): SupervisedWorkers {
  const stop = () => {
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  const running = workers.map((w) => w.run());
  for (const run of running) {
    run.catch(() => {
      onFailure();
      stop();
    });
  }
  const done = Promise.allSettled(running).then(async (results) => {
    await finish();
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  });
  return { done, stop };
}
