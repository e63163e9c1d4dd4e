/**
 * The poll lease: what keeps two polls of one agent from being open at the service at once when
 * a worker is cut off rather than dead. Temporal gives a poll activity up when its heartbeats stop
 * arriving (the heartbeat timeout) and the agent workflow polls again elsewhere, but a worker cut
 * off from Temporal only still reaches the service, and its SDK tells the activity nothing (a
 * heartbeat that fails is only logged): it would go on polling, and the service answers the older
 * of two polls 409. So the activity starts a poll only right after Temporal acknowledged one of its
 * heartbeats, within {@link POLL_LEASE.ackMaxMs} (activities/poll-lease.ts), and the workflow,
 * after a poll activity timed out, waits until a poll that activity may have started has ended at
 * the service ({@link lostPollWaitMs}): a worker cut off from the service as well leaves its last
 * request open there until the poll's own timeout. The next poll activity cuts that wait short
 * when the lost attempt's process has certainly ended (activities/poll-tickets.ts). Shared by the
 * activity and the workflow.
 */

export const POLL_LEASE = {
  /** An acknowledgement that took longer than this does not let a poll start (it is asked again). */
  ackMaxMs: 1000,
  /** Added for the way to the service and clocks that differ a little. */
  marginMs: 1000,
  /** How long the activity waits between acknowledgements asked in vain. */
  askAgainMs: 500,
} as const;

/**
 * How long, from when the workflow saw a poll activity time out, a poll it may have started can
 * still be open at the service. Its last poll started within `ackMaxMs` of a heartbeat Temporal
 * recorded, and Temporal timed it out `heartbeatTimeoutMs` after the last one it recorded: that
 * poll ends at the service `timeoutSeconds` after it arrived. Zero when the polls are shorter than
 * the heartbeat timeout (the chaos runs' scaled windows).
 */
export function lostPollWaitMs(timeoutSeconds: number, heartbeatTimeoutMs: number): number {
  return Math.max(0, timeoutSeconds * 1000 + POLL_LEASE.ackMaxMs + POLL_LEASE.marginMs - heartbeatTimeoutMs);
}
