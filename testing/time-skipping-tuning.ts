import type { AgentTuning } from '../protocol/agent';

/**
 * The agent's tuning under time skipping: no long polls (a running activity holds the clock), an
 * idle agent waits for the harness's wake signal, and the agent does not continue as new: once it
 * had (after 1,000 events, with a conversation open), the time-skipping server skipped no more time
 * for it (sdk-java#1540 reports the same after a parent's continue-as-new): every later `skip` took
 * real time and a wait for a Retry-After never ended. Continue-as-new is tested on the dev server.
 * A message is marked read by a request of its own at once (no grace for a reply to take it
 * along): the grace's timer, cancelled by a reply that leaves as it fires (a model thinking 3 s,
 * the default grace), made the time-skipping server refuse the agent's workflow task ("invalid
 * history builder state for action", then "Already open activity") and the agent stopped, where
 * the real server hands the workflow a new task with the timer's firing. The grace is tested on
 * the dev server (test/engine/read-ticks.test.ts, cost.test.ts).
 */
export const TIME_SKIPPING_TUNING = {
  pollTimeoutSeconds: 0,
  idlePollMs: 3_600_000,
  continueAsNewAfterEvents: 1_000_000,
  markReadGraceMs: 0,
} as const satisfies AgentTuning;
