/**
 * Payloads a worker cannot decode. Anyone who can signal a workflow can send one: `temporal
 * workflow signal --input-meta encoding=binary/encrypted` without keys, a ciphertext copied from
 * another workflow, a payload encrypted with a key this worker lacks. The SDK runs the codec over
 * a whole workflow activation at once, outside the workflow sandbox, and then the payload
 * converter inside it: a payload either one refuses fails the workflow task, Temporal retries it
 * for ever, and the workflow halts until someone resets it. So:
 *
 * - {@link UndecodableMarkingCodec} wraps the worker's codec: a payload of a workflow's (its
 *   signal, update and query arguments, but also its start arguments and a child's result: the
 *   codec cannot tell them apart) that the codec refuses becomes a marker, a payload of encoding
 *   {@link UNDECODABLE_ENCODING} carrying the codec's reason (key ids and workflow ids, never
 *   content). An activity's payloads are refused as before: the activity fails and is retried.
 * - Inside the sandbox, amsflow's workflow interceptor (workflows/author/checked-handlers.ts)
 *   drops a signal whose argument is a marker or does not convert, logged once and counted; the
 *   SDK refuses such an update itself (it refuses any update whose argument does not convert).
 * - {@link payloadConverter}, named by path (`PAYLOAD_CONVERTER_PATH` in data-converter.ts:
 *   workflow bundles and the data converter load it), is the SDK's default converter plus the
 *   marker's encoding, which it refuses with the codec's reason: where a marker is not a signal
 *   argument (a start argument, a child's result, a client's query result), the task or call
 *   fails as it did before, with the codec's own message. Every other payload converts exactly
 *   as the default converter converts it, so the histories written before replay unchanged.
 *
 * A payload dropped for a key this worker lacks is lost to its workflow, and a later replay with
 * that key would decode it: every worker must hold a key before anyone encrypts with it
 * (codec/README.md, "Undecodable payloads").
 *
 * Loaded by workflow bundles: imports nothing but `@temporalio/common` and core/ (no Node built-ins).
 */
import {
  CompositePayloadConverter,
  DefaultPayloadConverter,
  type Payload,
  type PayloadCodec,
  type PayloadConverterWithEncoding,
  type SerializationContext,
} from '@temporalio/common';
import { AmsflowError } from '../core/amsflow-error';
import { AmsflowErrorCodes } from '../core/error-codes';

/**
 * The encoding of a marker. Workflow code recognises it by this name (workflows/author/
 * checked-handlers.ts, which may not import codec/: a test keeps the two equal).
 */
export const UNDECODABLE_ENCODING = 'amsflow/undecodable';
/** The metadata entry of a marker holding why the codec refused the payload (UTF-8). */
export const UNDECODABLE_REASON_METADATA = 'amsflow-undecodable-reason';

/** The longest reason a marker carries: enough for the codec's message, bounded for any codec. */
const MAX_REASON_CHARS = 400;

/** A marker in place of a payload the codec refused, for `reason`. */
export function undecodableMarker(reason: string): Payload {
  return {
    metadata: {
      encoding: new TextEncoder().encode(UNDECODABLE_ENCODING),
      [UNDECODABLE_REASON_METADATA]: new TextEncoder().encode(reason.slice(0, MAX_REASON_CHARS)),
    },
    data: new Uint8Array(0),
  };
}

/** The reason a marker carries (empty when it carries none). */
export function undecodableReason(payload: Payload): string {
  return new TextDecoder().decode(payload.metadata?.[UNDECODABLE_REASON_METADATA] ?? new Uint8Array(0));
}

/** Why a codec refused a payload, as a marker keeps it (the codec's message: amsflow's names no content). */
function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : 'the payload codec refused it';
}

/**
 * The worker's codec, with a workflow's payloads it refuses turned into markers (one payload at a
 * time, so that one refused payload does not take its neighbours with it).
 */
export class UndecodableMarkingCodec implements PayloadCodec {
  constructor(
    /** The codec that does the work (the encryption codec). */
    readonly inner: PayloadCodec,
  ) {}

  encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    return this.inner.encode(payloads, context);
  }

  async decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    // An activity's arguments and results fail as before: the activity is retried, nothing halts.
    if (context?.type !== 'workflow') return this.inner.decode(payloads, context);
    return Promise.all(
      payloads.map(async (payload) => {
        try {
          const [decoded] = await this.inner.decode([payload], context);
          return decoded;
        } catch (err) {
          return undecodableMarker(reasonOf(err));
        }
      }),
    );
  }
}

/** A marker that reached the converter where it is no argument: the codec's refusal, as before. */
export class UndecodablePayloadError extends AmsflowError {
  readonly code = AmsflowErrorCodes.encryptionCodec;
}

/** Converts no value; refuses a marker with the codec's reason. */
class MarkerConverter implements PayloadConverterWithEncoding {
  readonly encodingType = UNDECODABLE_ENCODING;

  toPayload(): undefined {
    return undefined;
  }

  fromPayload<T>(payload: Payload): T {
    throw new UndecodablePayloadError(undecodableReason(payload) || 'the payload codec refused this payload');
  }
}

/**
 * The payload converter of amsflow's workflow bundles and data converters: the SDK's default
 * converters in their order (so every value converts to the payload it always did), then the
 * marker's, which converts no value.
 */
export const payloadConverter = new CompositePayloadConverter(
  ...new DefaultPayloadConverter().converters,
  new MarkerConverter(),
);
