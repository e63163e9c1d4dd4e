/**
 * Handlers that check their argument first. Anyone with access to the namespace can signal or
 * update any amsflow workflow with any payload; a handler that threw on one (`{ seq } = null`)
 * would fail the workflow task, Temporal would retry it forever, and the workflow would halt. So
 * a signal whose argument does not fit its schema (protocol/message-schemas.ts) is logged once
 * (no payload in the line), counted, and dropped; an update's validator rejects it before it
 * enters history.
 *
 * Before any handler, an argument must decode at all: the SDK converts a signal's payloads before
 * any interceptor or handler sees them, and one it cannot convert (an encoding no converter knows,
 * JSON that does not parse, a payload the worker's codec refused: codec/undecodable.ts) fails the
 * workflow task. The {@link interceptors} of this module, bundled with every amsflow workflow
 * (worker/bundling.ts), see the activation first: a signal with such an argument is dropped as a
 * misfit is (whatever its name: the author's own signals too), a query's such argument is replaced
 * by nothing (queries read no argument). An update's is refused by the SDK itself, which refuses
 * any update whose argument does not convert. The decision depends on the payload alone, so a
 * replay drops the same signals.
 */
import {
  defaultPayloadConverter,
  type Payload,
  type SignalDefinition,
  type UpdateDefinition,
} from '@temporalio/common';
import {
  log,
  setHandler,
  workflowInfo,
  type ActivateInput,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import type { z } from 'zod';
import { schemaProblem } from '../../protocol/message-schemas';
import {
  cancelSignal,
  inboundSignal,
  lateSignal,
  movingSignal,
  opsSignal,
  receiptSignal,
  resumeSignal,
  sendResultSignal,
  wakeSignal,
} from '../../protocol/messages';
import { memoryCommandSignal } from '../../protocol/models';
import { remindersCommandSignal } from '../../protocol/reminders';
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

/** The signals amsflow's workflows handle: a dropped one is counted under its name, any other as `other`. */
const KNOWN_SIGNALS: ReadonlySet<string> = new Set(
  [
    opsSignal,
    wakeSignal,
    resumeSignal,
    sendResultSignal,
    inboundSignal,
    lateSignal,
    receiptSignal,
    movingSignal,
    cancelSignal,
    remindersCommandSignal,
    memoryCommandSignal,
  ].map((def) => def.name),
);

/** A signal name as a log line shows it: anyone chooses it, so short and printable. */
const shownName = (name: string) => name.slice(0, 80).replace(/[^\x20-\x7e]/g, '?');

/** Logs (once, without the payload) and counts a signal whose argument did not fit. */
export function dropSignal(name: string, problem: string): void {
  const { workflowType, workflowId } = workflowInfo();
  const shown = shownName(name);
  log.warn(`${workflowType}: signal ${shown} dropped, its argument does not fit: ${problem}`, {
    workflowId,
    signal: shown,
  });
  // The label takes a small fixed set of values: names are the sender's to choose.
  countDroppedSignal(workflowType, KNOWN_SIGNALS.has(name) ? name : 'other');
}

/**
 * The encoding of a payload the worker's codec refused, and the metadata entry with its reason:
 * codec/undecodable.ts makes them (workflow code may not import codec/; a test keeps them equal).
 */
export const UNDECODABLE_ENCODING = 'amsflow/undecodable';
export const UNDECODABLE_REASON_METADATA = 'amsflow-undecodable-reason';

const text = (bytes: Uint8Array | null | undefined) => new TextDecoder().decode(bytes ?? new Uint8Array(0));

/**
 * Why `payload` does not convert (its encoding, never its content), or undefined when it does.
 * Every amsflow bundle converts with the default converter plus the codec's marker
 * (codec/undecodable.ts, `bundleBot`): so this is exactly the converter's own verdict.
 */
export function undecodableProblem(payload: Payload): string | undefined {
  const encoding = text(payload.metadata?.encoding);
  if (encoding === UNDECODABLE_ENCODING) {
    return `the worker's codec refused it (${text(payload.metadata?.[UNDECODABLE_REASON_METADATA]) || 'no reason given'})`;
  }
  try {
    defaultPayloadConverter.fromPayload(payload);
    return undefined;
  } catch {
    // The converter's own message may quote the data (a JSON parse error does): not logged.
    const shown = JSON.stringify(encoding.slice(0, 60).replace(/[^\x20-\x7e]/g, '?'));
    return defaultPayloadConverter.converterByEncoding.has(encoding)
      ? `its data is not valid ${shown}`
      : `no converter knows its encoding ${shown}`;
  }
}

/** Why one of `payloads` does not convert, or undefined when all do. */
function firstProblem(payloads: readonly Payload[] | null | undefined): string | undefined {
  for (const payload of payloads ?? []) {
    const problem = undecodableProblem(payload);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** A payload that converts to `undefined`: what an undecodable query argument becomes. */
const NOTHING: Payload = { metadata: { encoding: new TextEncoder().encode('binary/null') } };

/**
 * Takes the undecodable arguments out of an activation before the SDK converts them: drops such a
 * signal (logged, counted), blanks such a query argument. Mutates the activation's jobs in place:
 * each batch the SDK hands the sandbox is its own copy, and a query activation is used once.
 */
function takeOutUndecodable(activation: ActivateInput['activation']): void {
  const jobs = activation.jobs ?? [];
  const kept = jobs.filter((job) => {
    const signal = job.signalWorkflow;
    if (!signal) return true;
    const problem = firstProblem(signal.input);
    if (problem === undefined) return true;
    dropSignal(signal.signalName ?? '', `it does not decode: ${problem}`);
    return false;
  });
  if (kept.length !== jobs.length) activation.jobs = kept;
  for (const job of kept) {
    const query = job.queryWorkflow;
    if (query?.arguments && firstProblem(query.arguments) !== undefined) {
      query.arguments = query.arguments.map((p) => (undecodableProblem(p) === undefined ? p : NOTHING));
    }
  }
}

/** The interceptor module's factory (worker/bundling.ts bundles it with every amsflow workflow). */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  internals: [
    {
      activate(input, next) {
        takeOutUndecodable(input.activation);
        return next(input);
      },
    },
  ],
});
