/**
 * Where an inbound message goes, decided in one place over the router's registrations (pure):
 * a late answer to a timed-out question goes to the conversation that asked; a reply to a
 * "which one?" list is a choice; a bare answer word that could answer more than one open question
 * (several approvals, or an approval and another conversation's question) gets "which one?";
 * anything else goes to the waiters that take it, in turn (`Router.take`), and when none takes
 * it, to a new handler. The dispatcher carries the decision out.
 */
import type { InboundMessage } from '../../protocol';
import type { LateAnswer, Router } from './router';
import type { WhichChoice } from './which-one';

export type Destination =
  | { kind: 'late'; late: LateAnswer }
  | { kind: 'choice'; choice: WhichChoice }
  | { kind: 'which'; waits: { workflowId: string; label: string }[] }
  | { kind: 'waiters' };

export function destinationOf(router: Router, message: InboundMessage): Destination {
  const late = router.late(message);
  if (late) return { kind: 'late', late };
  const choice = router.whichOnes.choice(message);
  if (choice) return { kind: 'choice', choice };
  const waits = router.ambiguousWaits(message);
  if (waits) return { kind: 'which', waits };
  return { kind: 'waiters' };
}

/** What a pick from a list gets when that question was answered or ended meanwhile. */
export const NOT_WAITING_TEXT = 'That question is not waiting for an answer any more.';

/**
 * A reply to a "which one?" list that picks nothing: the list again, of the waits that still
 * wait (numbered anew), or, when none does, that the question is not waiting any more.
 */
export function askAgain(
  router: Router,
  choice: Extract<WhichChoice, { kind: 'again' }>,
): { waits: { workflowId: string; label: string }[] } | { text: string } {
  const waits = router.choosable(choice.list.workflowIds);
  return waits.length > 0 ? { waits } : { text: NOT_WAITING_TEXT };
}
