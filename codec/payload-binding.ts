/**
 * What an encrypted payload is bound to: the namespace and the workflow it was written for. The
 * SDK hands codecs a serialization context (`@temporalio/common`'s `SerializationContext`, 1.24):
 * a workflow's own payloads, the payloads a client sends it, and its activities' inputs and
 * results all carry that workflow's namespace and id, on the writing side and on the reading side.
 * The codec writes the binding into the payload's metadata (`encryption-context`) and
 * authenticates it as AES-GCM associated data; a reader with a context refuses a payload bound
 * to another workflow. So a ciphertext copied from one workflow's history into a signal to
 * another does not decode there, and a codec server asked for namespace B does not decode A's.
 *
 * Pure: no key material here, only the rules.
 */
import type { SerializationContext } from '@temporalio/common';
import { z } from 'zod';

/** The metadata entry holding a payload's binding, as JSON. */
export const CONTEXT_METADATA = 'encryption-context';

/** A namespace and a workflow id; either may be unknown. */
export interface PayloadBinding {
  namespace?: string;
  workflowId?: string;
}

const BindingSchema = z
  .object({ namespace: z.string().min(1).optional(), workflowId: z.string().min(1).optional() })
  .strict();

/** The binding of an SDK serialization context (an activity's is the workflow that runs it). */
export function bindingOf(context: SerializationContext | undefined): PayloadBinding | undefined {
  if (!context) return undefined;
  return {
    ...(context.namespace ? { namespace: context.namespace } : {}),
    ...(context.workflowId ? { workflowId: context.workflowId } : {}),
  };
}

/** The metadata value of a binding: JSON with a fixed key order. */
export function bindingText(binding: PayloadBinding | undefined): string {
  return JSON.stringify({
    ...(binding?.namespace ? { namespace: binding.namespace } : {}),
    ...(binding?.workflowId ? { workflowId: binding.workflowId } : {}),
  });
}

/** The binding a payload's metadata names; undefined when the value is not one. */
export function parseBinding(text: string): PayloadBinding | undefined {
  try {
    const parsed = BindingSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The associated data of a bound payload: a format tag, the key id and the binding's metadata
 * bytes exactly as stored (key ids hold no line break, so the parts cannot run into each other).
 */
export function boundAssociatedData(keyId: string, bindingBytes: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`amsflow-payload-v2\n${keyId}\n`, 'utf8'), bindingBytes]);
}

/** What is wrong with reading a payload bound to `bound` in `reader`'s context, if anything. */
export function bindingMismatch(
  bound: PayloadBinding,
  reader: PayloadBinding | undefined,
  strict: boolean,
): string | undefined {
  const where = (b: PayloadBinding) =>
    `${b.workflowId ? `workflow "${b.workflowId}"` : 'no particular workflow'} in ${
      b.namespace ? `namespace "${b.namespace}"` : 'no particular namespace'
    }`;
  const differs = (a: string | undefined, b: string | undefined) =>
    a !== undefined && b !== undefined && a !== b;
  if (reader && (differs(bound.namespace, reader.namespace) || differs(bound.workflowId, reader.workflowId)))
    return `it was written for ${where(bound)}, not for ${where(reader)}`;
  if (!strict || !reader) return undefined;
  if (reader.namespace !== undefined && bound.namespace === undefined)
    return `it is bound to ${where(bound)} and strict mode needs its namespace`;
  if (reader.workflowId !== undefined && bound.workflowId === undefined)
    return `it is bound to ${where(bound)} and strict mode needs its workflow`;
  return undefined;
}
