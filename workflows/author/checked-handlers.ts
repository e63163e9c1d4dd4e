/**
 * Handlers that check their argument first. Anyone with access to the namespace can signal or
 * update any amsflow workflow with any payload; a handler that threw on one (`{ seq } = null`)
 * would fail the workflow task, Temporal would retry it forever, and the workflow would halt. So
 * a signal whose argument does not fit its schema (protocol/message-schemas.ts) is logged once
 * (no payload in the line), counted, and dropped; an update's validator rejects it before it
 * enters history.
 */
import type { SignalDefinition, UpdateDefinition } from '@temporalio/common';
import { log, setHandler, workflowInfo } from '@temporalio/workflow';
import type { z } from 'zod';
import { schemaProblem } from '../../protocol/message-schemas';
import { countDroppedSignal } from './metrics';

/** Sets `handler` for `def`, called only with an argument that fits `schema` (else dropped). */
export function setCheckedSignal<T>(
  def: SignalDefinition<[T]>,
  schema: z.ZodTypeAny,
  handler: (arg: T) => void | Promise<void>,
): void {
  setHandler(def, (arg: unknown) => {
    const parsed = schema.safeParse(arg);
    if (!parsed.success) {
      dropSignal(def.name, schemaProblem(parsed.error));
      return;
    }
    return handler(parsed.data as T);
  });
}

/** Sets `handler` for `def` with a validator: a misfit argument is rejected before history. */
export function setCheckedUpdate<R, T>(
  def: UpdateDefinition<R, [T]>,
  schema: z.ZodTypeAny,
  handler: (arg: T) => Promise<R>,
  /** A first check, in the words callers know; returns why the argument is refused. */
  problem?: (arg: unknown) => string | undefined,
  /** Checked before anything else: throws to refuse any update now (whatever its argument). */
  gate?: () => void,
): void {
  setHandler(def, (arg: T) => handler(arg), {
    validator: (arg: unknown) => {
      gate?.();
      const refused = problem?.(arg);
      if (refused) throw new TypeError(refused);
      const parsed = schema.safeParse(arg);
      if (!parsed.success) throw new TypeError(`${def.name}: ${schemaProblem(parsed.error)}`);
    },
  });
}

/** Why `arg` does not fit `schema` (paths and codes, no payload), or undefined when it fits. */
export function signalProblem(schema: z.ZodTypeAny, arg: unknown): string | undefined {
  const parsed = schema.safeParse(arg);
  return parsed.success ? undefined : schemaProblem(parsed.error);
}

/** Logs (once, without the payload) and counts a signal whose argument did not fit. */
export function dropSignal(name: string, problem: string): void {
  const { workflowType, workflowId } = workflowInfo();
  log.warn(`${workflowType}: signal ${name} dropped, its argument does not fit: ${problem}`, {
    workflowId,
    signal: name,
  });
  countDroppedSignal(workflowType, name);
}
