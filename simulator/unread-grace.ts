/**
 * The read check: an inbound message the agent was shown (delivered: first returned in a 200 page
 * of GET /updates) must be marked read (POST /statuses, with or without a typing indicator) within
 * `unreadGraceMs` of simulated time, or it counts as a protocol violation, like overlapping sends.
 * Worked out from the records' timestamps whenever it is asked, not by a timer per message, so
 * that it is right at any moment, after a clock jump and after a restart from the state file alike.
 */

/** Default `SimulatorOptions.unreadGraceMs`: simulated ms from delivery to mark-read. */
export const DEFAULT_UNREAD_GRACE_MS = 10_000;

/**
 * The moments of an inbound message that the check reads: those of state.ts's `InboundRecord`,
 * written out here so that this module imports nothing of the simulator's (options.ts imports
 * its default, and state.ts imports options.ts: a cycle otherwise).
 */
export interface ReadMoments {
  markedRead: boolean;
  /** Simulated epoch ms of its delivery (first 200 page of GET /updates); absent before. */
  deliveredSimAt?: number;
  /** Simulated epoch ms it was marked read; absent while unread. */
  readSimAt?: number;
}

export interface UnreadCounts {
  /** Delivered messages that were, or still are, unread longer than the grace after delivery. */
  unreadPastGrace: number;
  /** Delivered messages not marked read now, whatever their age (the check "at the end of a run"). */
  unreadDelivered: number;
}

/**
 * Whether a message was or is unread longer than `graceMs` after its delivery, at simulated time
 * `now`. A message never delivered is not: the agent cannot mark read what it was never shown.
 * A message read before it was delivered (its id known otherwise) is not late either.
 */
export function pastGrace(record: ReadMoments, now: number, graceMs: number): boolean {
  // Never delivered, or from a state file written before these moments were kept.
  if (record.deliveredSimAt === undefined) return false;
  const readOrNow = record.readSimAt ?? now;
  return readOrNow - record.deliveredSimAt > graceMs;
}

/** The agent's counts of {@link UnreadCounts} at simulated time `now`. */
export function unreadCounts(records: readonly ReadMoments[], now: number, graceMs: number): UnreadCounts {
  let unreadPastGrace = 0;
  let unreadDelivered = 0;
  for (const record of records) {
    if (pastGrace(record, now, graceMs)) unreadPastGrace++;
    if (!record.markedRead && record.deliveredSimAt !== undefined) unreadDelivered++;
  }
  return { unreadPastGrace, unreadDelivered };
}
