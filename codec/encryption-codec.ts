/**
 * Encryption at rest: a {@link PayloadCodec} that encrypts every payload with AES-256-GCM before
 * it leaves the process, so that Temporal's database and its gRPC traffic hold only ciphertext.
 *
 * An encrypted payload has the metadata `encoding: binary/encrypted` and `encryption-key-id: <id>`;
 * its data is a random 12-byte IV, the ciphertext, then the 16-byte GCM tag. The plaintext is the
 * original payload (its metadata and data, see {@link packPayload}). Payloads are encrypted with
 * the first (current) key and decrypted with whichever key they name, so keys rotate by putting a
 * new one first and keeping the old ones while histories still need them.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { EncryptionKey } from './keys';

/** The `encoding` of an encrypted payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** The metadata key naming the key that encrypted a payload. */
export const KEY_ID_METADATA = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const ALGORITHM = 'aes-256-gcm';

/** Why a payload could not be decrypted. */
export type EncryptionCodecProblem = 'unknown-key' | 'tampered';

/** A payload that cannot be decrypted: its key is not configured, or it was altered or truncated. */
export class EncryptionCodecError extends Error {
  readonly code = 'AMSFLOW_ENCRYPTION_CODEC';
  constructor(
    readonly problem: EncryptionCodecProblem,
    /** The key id the payload names. */
    readonly keyId: string,
  ) {
    super(
      problem === 'unknown-key'
        ? `Cannot decrypt a payload encrypted with key "${keyId}": no such key in AMSFLOW_ENCRYPTION_KEYS ` +
            '(keep old keys listed, after the current one, while histories need them)'
        : `Cannot decrypt a payload encrypted with key "${keyId}": it was altered, truncated or encrypted with another key of that id`,
    );
    this.name = 'EncryptionCodecError';
  }
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

/** AES-256-GCM encryption of payloads, with key ids for rotation. */
export class EncryptionCodec implements PayloadCodec {
  private readonly current: EncryptionKey;
  private readonly byId: ReadonlyMap<string, Buffer>;

  /** `keys`: the current key first, then older ones still needed to decrypt. At least one. */
  constructor(keys: readonly EncryptionKey[]) {
    if (keys.length === 0) throw new TypeError('EncryptionCodec needs at least one key');
    for (const { id, key } of keys) {
      if (key.length !== 32) throw new TypeError(`EncryptionCodec: key "${id}" is not 32 bytes`);
    }
    this.current = keys[0];
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  /** The id of the key new payloads are encrypted with. */
  get currentKeyId(): string {
    return this.current.id;
  }

  /** Encrypts every payload with the current key. */
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encrypt(payload));
  }

  /** Decrypts every encrypted payload; others pass unchanged (histories written before encryption). */
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.decrypt(payload));
  }

  private encrypt(payload: Payload): Payload {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.current.key, iv);
    // The key id is authenticated too: a payload relabelled with another id does not decrypt.
    cipher.setAAD(Buffer.from(this.current.id, 'utf8'));
    const sealed = Buffer.concat([cipher.update(packPayload(payload)), cipher.final()]);
    return {
      metadata: {
        encoding: Buffer.from(ENCRYPTED_ENCODING, 'utf8'),
        [KEY_ID_METADATA]: Buffer.from(this.current.id, 'utf8'),
      },
      data: Buffer.concat([iv, sealed, cipher.getAuthTag()]),
    };
  }

  private decrypt(payload: Payload): Payload {
    if (text(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload;
    const keyId = text(payload.metadata?.[KEY_ID_METADATA]);
    const key = this.byId.get(keyId);
    if (!key) throw new EncryptionCodecError('unknown-key', keyId);
    const data = Buffer.from(payload.data ?? []);
    if (data.length < IV_BYTES + TAG_BYTES) throw new EncryptionCodecError('tampered', keyId);
    let plain: Buffer;
    try {
      const decipher = createDecipheriv(ALGORITHM, key, data.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(keyId, 'utf8'));
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
