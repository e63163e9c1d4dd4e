/**
 * Workflows for the activation guard's suite (activation-guard.test.ts). The first sleeps until a
 * time after its start, however many timers that takes. On the right clock, one; on a stale one,
 * the timer that fired looks early and a second starts (what a replay then refuses).
 */
import { condition, defineQuery, defineSignal, setHandler, sleep } from '@temporalio/workflow';

export const clockQuery = defineQuery<number>('clock');

/** Sleeps until `ms` after its start; returns how many timers it started. */
export async function sleepUntilDue(ms: number): Promise<number> {
  setHandler(clockQuery, () => Date.now());
  const due = Date.now() + ms;
  let timers = 0;
  while (Date.now() < due) {
    timers++;
    await sleep(due - Date.now());
  }
  return timers;
}

export const opSignal = defineSignal<[string]>('op');

/**
 * Gathers ops in rounds: an op alone starts a 1-s timer before the next round; two or more met
 * in one round end the run (returns the rounds). Two signals that one workflow task delivers
 * together end it in one round; run one at a time, as a query's activation can, they never do.
 */
export async function gatherOps(): Promise<number> {
  const queue: string[] = [];
  let rounds = 0;
  setHandler(opSignal, (op) => void queue.push(op));
  setHandler(clockQuery, () => Date.now());
  for (;;) {
    await condition(() => queue.length > 0);
    rounds++;
    if (queue.splice(0).length > 1) return rounds;
    await sleep(1000);
  }
}
