/**
 * The poll loop's patch checks: each rule that changed what a poll loop does after runs were
 * recorded. `patched()` records a marker the first time it is called in a run: keep the calls
 * where the poll loop makes them.
 */
import { patched } from '@temporalio/workflow';
import { PATCH_CAN_WAITS_FOR_POLL } from './runtime';

/** Runs recorded before continue-as-new waited for a cancelled poll to end. */
export function awaitsCancel(): boolean {
  return patched(PATCH_CAN_WAITS_FOR_POLL);
}

/** Runs recorded before a full page or a 409 could pass a reconciliation's fence. */
export function strictFence(): boolean {
  return patched('amsflow-fence-reads-to-end');
}

/** Runs recorded before the even cadence polled again at once after a page with a message. */
export function evenCadence(): boolean {
  return patched('amsflow-even-poll-cadence');
}

/** Runs recorded before receipt settling polled again at once after a page of receipts. */
export function settling(): boolean {
  return patched('amsflow-receipt-settle');
}
