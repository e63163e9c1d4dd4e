import type { AgentTuning } from '../protocol/agent-tuning';

/**
 * The agent's tuning under time skipping: no long polls (a running activity holds the clock), an
 * idle agent waits for the harness's wake signal, and the agent does not continue as new: once it
 * had (after 1,000 events, with a conversation open), the time-skipping server skipped no more time
 * for it (sdk-java#1540 reports the same after a parent's continue-as-new): every later `skip` took
 * real time and a wait for a Retry-After never ended. Continue-as-new is tested on the dev server.
 */
export const TIME_SKIPPING_TUNING = {
  pollTimeoutSeconds: 0,
  idlePollMs: 3_600_000,
  continueAsNewAfterEvents: 1_000_000,
} as const satisfies AgentTuning;
