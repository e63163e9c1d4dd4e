/**
 * A workflow for the stale-clock guard's suite (stale-clock.test.ts): it sleeps until a time
 * after its start, however many timers that takes. On the right clock, one; on a stale one, the
 * timer that fired looks early and a second starts (what a replay then refuses).
 */
import { defineQuery, setHandler, sleep } from '@temporalio/workflow';

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
