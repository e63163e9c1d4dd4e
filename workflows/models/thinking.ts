/**
 * One model call of a turn, as an activity (never in workflow code), with the typing indicator on
 * the human's latest message and the human listened to while the model thinks. An interrupted or
 * cancelled call is cancelled (its activity hears it at its next heartbeat); its answer, should it
 * still come, is dropped.
 */
import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import { typing } from '../author/sending';
import type { ModelCallInput, ModelCallOutput } from '../../protocol/models';
import type { Listener } from './listening';
import { modelCalls } from './model-activities';
import type { TurnSettings } from './model-options';
import type { Turn } from './turn';

/** What one model call came to. */
export type Thought =
  | { kind: 'answered'; output: Extract<ModelCallOutput, { status: 'answered' }> }
  | { kind: 'noModel' }
  /** Every attempt failed (or the model refused): the failure's type, for the operator. */
  | { kind: 'failed'; type: string }
  | { kind: 'interrupted' }
  | { kind: 'cancelled' };

/** The failure type of a model call that gave up. */
function failureType(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure && cause.type) return cause.type;
  return cause instanceof Error ? cause.name : 'Error';
}

/** Calls the model with the turn's chat so far; listens for the human meanwhile. */
export async function think(
  turn: Turn,
  settings: TurnSettings,
  listener: Listener,
  input: ModelCallInput,
): Promise<Thought> {
  await typing(turn.latest);
  const scope = new CancellationScope();
  const call = scope.run(() => modelCalls(settings).amsflowModelCall(input));
  let got;
  try {
    got = await listener.during(call, 'restart');
  } catch (err) {
    if (isCancellation(err)) throw err;
    return { kind: 'failed', type: failureType(err) };
  }
  if (got.kind !== 'done') {
    scope.cancel();
    call.catch(() => undefined);
    return got;
  }
  if (got.value.status === 'notConfigured') return { kind: 'noModel' };
  return { kind: 'answered', output: got.value };
}
