/**
 * Encryption at rest: a {@link PayloadCodec} that encrypts every payload with AES-256-GCM before
 * it leaves the process, so that Temporal's database and its gRPC traffic hold only ciphertext.
 *
 * An encrypted payload has the metadata `encoding: binary/encrypted`, `encryption-key-id: <id>`
 * and `encryption-context: {"namespace":…,"workflowId":…}` (see payload-binding.ts); its data is
 * a random 12-byte IV, the ciphertext, then the 16-byte GCM tag. The plaintext is the original
 * payload (its metadata and data, see {@link packPayload}); the key id and the context are the
 * associated data, so neither can be changed without the payload failing to decrypt, and a
 * payload read in another workflow's context is refused. Payloads are encrypted with the first
 * (current) key and decrypted with whichever key they name, so keys rotate by putting a new one
 * first and keeping the old ones while histories still need them. Payloads written before the
 * context existed (no `encryption-context`, only the key id authenticated) still decrypt, unless
 * the codec is strict.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
import type { EncryptionKey } from './keys';
import {
  bindingMismatch,
  bindingOf,
  bindingText,
  boundAssociatedData,
  CONTEXT_METADATA,
  parseBinding,
  type PayloadBinding,
} from './payload-binding';

/** The `encoding` of an encrypted payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** The metadata key naming the key that encrypted a payload. */
export const KEY_ID_METADATA = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const ALGORITHM = 'aes-256-gcm';

/**
 * Why a payload could not be decoded: `unknown-key` (its key is not configured), `tampered`
 * (altered, truncated, another key of that id), `wrong-context` (written for another workflow or
 * namespace), and in strict mode `unencrypted` and `unbound` (written before payloads were bound).
 */
export type EncryptionCodecProblem = 'unknown-key' | 'tampered' | 'wrong-context' | 'unencrypted' | 'unbound';

const PROBLEMS: Record<EncryptionCodecProblem, (keyId: string, detail: string) => string> = {
  'unknown-key': (id) =>
    `Cannot decrypt a payload encrypted with key "${id}": no such key in AMSFLOW_ENCRYPTION_KEYS ` +
    '(keep old keys listed, after the current one, while histories need them)',
  tampered: (id) =>
    `Cannot decrypt a payload encrypted with key "${id}": it was altered, truncated or encrypted with another key of that id`,
  'wrong-context': (id, detail) =>
    `Refused a payload encrypted with key "${id}": ${detail} (a payload copied between workflows or namespaces does not decode)`,
  unencrypted: () =>
    'Refused an unencrypted payload: AMSFLOW_ENCRYPTION_STRICT accepts only payloads encrypted with the keys',
  unbound: (id) =>
    `Refused a payload encrypted with key "${id}" before payloads were bound to their workflow: ` +
    'AMSFLOW_ENCRYPTION_STRICT accepts only bound payloads (rotate keys and wait out the old histories first)',
};

/** A payload that cannot be decoded (see {@link EncryptionCodecProblem}). */
export class EncryptionCodecError extends Error {
  readonly code = 'AMSFLOW_ENCRYPTION_CODEC';
  constructor(
    readonly problem: EncryptionCodecProblem,
    /** The key id the payload names ('' when it names none). */
    readonly keyId: string,
    detail = '',
  ) {
    super(PROBLEMS[problem](keyId, detail));
    this.name = 'EncryptionCodecError';
  }
}

/** Options of {@link EncryptionCodec}. */
export interface EncryptionCodecOptions {
  /**
   * Decode only what this codec's keys wrote for the reader's context: refuse unencrypted
   * payloads, payloads written before binding existed, and payloads that do not name the
   * reader's namespace and workflow. Off by default (`AMSFLOW_ENCRYPTION_STRICT=1` turns it on).
   */
  strict?: boolean;
}

const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');

/**
 * A payload as bytes: 4 bytes (big-endian) of metadata length, the metadata as JSON (values in
 * base64), then the data.
 */
export function packPayload(payload: Payload): Buffer {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(payload.metadata ?? {})) {
    metadata[key] = Buffer.from(value ?? []).toString('base64');
  }
  const head = Buffer.from(JSON.stringify(metadata), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(head.length);
  return Buffer.concat([length, head, Buffer.from(payload.data ?? [])]);
}

/** The inverse of {@link packPayload}; undefined when `bytes` are not a packed payload. */
export function unpackPayload(bytes: Buffer): Payload | undefined {
  if (bytes.length < 4) return undefined;
  const length = bytes.readUInt32BE(0);
  if (4 + length > bytes.length) return undefined;
  let metadata: unknown;
  try {
    metadata = JSON.parse(bytes.subarray(4, 4 + length).toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  return {
    metadata: Object.fromEntries(
      Object.entries(metadata).map(([key, value]) => [
        key,
        new Uint8Array(Buffer.from(String(value), 'base64')),
      ]),
    ),
    data: new Uint8Array(bytes.subarray(4 + length)),
  };
}

/** AES-256-GCM encryption of payloads, with key ids for rotation and the workflow as context. */
export class EncryptionCodec implements PayloadCodec {
  private readonly current: EncryptionKey;
  private readonly byId: ReadonlyMap<string, Buffer>;
  private readonly strict: boolean;

  /** `keys`: the current key first, then older ones still needed to decrypt. At least one. */
  constructor(keys: readonly EncryptionKey[], options: EncryptionCodecOptions = {}) {
    if (keys.length === 0) throw new TypeError('EncryptionCodec needs at least one key');
    for (const { id, key } of keys) {
      if (key.length !== 32) throw new TypeError(`EncryptionCodec: key "${id}" is not 32 bytes`);
    }
    this.current = keys[0];
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
    this.strict = options.strict === true;
  }

  /** The id of the key new payloads are encrypted with. */
  get currentKeyId(): string {
    return this.current.id;
  }

  /** Encrypts every payload with the current key, bound to `context` (the SDK's). */
  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    return this.encodeFor(payloads, bindingOf(context));
  }

  /**
   * Decrypts every encrypted payload, refusing one bound to another context; others pass
   * unchanged (histories written before encryption) unless the codec is strict.
   */
  async decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    return this.decodeFor(payloads, bindingOf(context));
  }

  /** {@link encode} for a binding of the caller's (the codec server's namespace). */
  async encodeFor(payloads: Payload[], binding: PayloadBinding | undefined): Promise<Payload[]> {
    const bytes = Buffer.from(bindingText(binding), 'utf8');
    return payloads.map((payload) => this.encrypt(payload, bytes));
  }

  /** {@link decode} for a reader's binding (undefined: nothing to compare with). */
  async decodeFor(payloads: Payload[], reader: PayloadBinding | undefined): Promise<Payload[]> {
    return payloads.map((payload) => this.decrypt(payload, reader));
  }

  private encrypt(payload: Payload, binding: Buffer): Payload {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.current.key, iv);
    cipher.setAAD(boundAssociatedData(this.current.id, binding));
    const sealed = Buffer.concat([cipher.update(packPayload(payload)), cipher.final()]);
    return {
      metadata: {
        encoding: Buffer.from(ENCRYPTED_ENCODING, 'utf8'),
        [KEY_ID_METADATA]: Buffer.from(this.current.id, 'utf8'),
        [CONTEXT_METADATA]: new Uint8Array(binding),
      },
      data: Buffer.concat([iv, sealed, cipher.getAuthTag()]),
    };
  }

  private decrypt(payload: Payload, reader: PayloadBinding | undefined): Payload {
    if (text(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) {
      if (this.strict) throw new EncryptionCodecError('unencrypted', '');
      return payload;
    }
    const keyId = text(payload.metadata?.[KEY_ID_METADATA]);
    const key = this.byId.get(keyId);
    if (!key) throw new EncryptionCodecError('unknown-key', keyId);
    const stored = payload.metadata?.[CONTEXT_METADATA];
    if (stored === undefined || stored === null) {
      // Written before payloads were bound: only the key id was authenticated.
      if (this.strict) throw new EncryptionCodecError('unbound', keyId);
      return this.open(payload, key, keyId, Buffer.from(keyId, 'utf8'));
    }
    const bound = parseBinding(text(stored));
    if (!bound) throw new EncryptionCodecError('tampered', keyId);
    const original = this.open(payload, key, keyId, boundAssociatedData(keyId, stored));
    const mismatch = bindingMismatch(bound, reader, this.strict);
    if (mismatch) throw new EncryptionCodecError('wrong-context', keyId, mismatch);
    return original;
  }

  /** The original payload of `payload`'s data, authenticated with `aad`. */
  private open(payload: Payload, key: Buffer, keyId: string, aad: Buffer): Payload {
    const data = Buffer.from(payload.data ?? []);
    if (data.length < IV_BYTES + TAG_BYTES) throw new EncryptionCodecError('tampered', keyId);
    let plain: Buffer;
    try {
      const decipher = createDecipheriv(ALGORITHM, key, data.subarray(0, IV_BYTES));
      decipher.setAAD(aad);
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      plain = Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      throw new EncryptionCodecError('tampered', keyId);
    }
    const original = unpackPayload(plain);
    if (!original) throw new EncryptionCodecError('tampered', keyId);
    return original;
  }
}
