/**
 * **Double texting**: a turn awaits its work (a model call, an approval, a tool) while listening
 * for the human. Unless the policy is `apart`, the turn waits for the human's next message with
 * `firstOf` for as long as the work runs, so a message sent meanwhile comes to this turn instead
 * of a new handler: it is held for the turn (`Turn.hold`), and under `interrupt` it ends the
 * wait at once when the work may be interrupted (a model call, a pending approval; never a tool
 * that runs). A cancel word, or the operator's cancel, ends the turn.
 */
import { firstOf } from '../author/waiting';
import type { DoubleTexting } from './model-options';
import type { Turn } from './turn';

/** How a wait for work ended: done (its value), interrupted by a message, or cancelled. */
export type Busy<T> = { kind: 'done'; value: T } | { kind: 'interrupted' } | { kind: 'cancelled' };

/** What listening does with a message that arrived: hold it, and whether it interrupts (pure). */
export function interrupts(policy: DoubleTexting, interruptible: boolean): boolean {
  return policy === 'interrupt' && interruptible;
}

/**
 * Awaits `work`, listening for the human as `policy` says. Resolves `done` when the work ended (a
 * failure of the work is thrown), `interrupted` when a message interrupts it, `cancelled` when the
 * conversation was cancelled (the work may still run: the caller decides what becomes of it).
 */
export async function listenWhile<T>(
  turn: Turn,
  policy: DoubleTexting,
  work: Promise<T>,
  interruptible: boolean,
): Promise<Busy<T>> {
  if (policy === 'apart') return { kind: 'done', value: await work };
  let settled = false;
  work.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled) {
    const got = await firstOf({ until: () => settled, reaction: false });
    if (got.kind === 'cancel') return { kind: 'cancelled' };
    if (got.kind === 'message' || got.kind === 'reply') {
      turn.hold(got.message);
      if (interrupts(policy, interruptible)) return { kind: 'interrupted' };
    }
  }
  return { kind: 'done', value: await work };
}
