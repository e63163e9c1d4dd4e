/**
 * The encryption keys of `AMSFLOW_ENCRYPTION_KEYS`: comma-separated `id:base64key` entries, each
 * key 32 bytes (AES-256), the first one current (it encrypts; every one listed decrypts); `off`
 * for none. Parsed
 * with zod so that a bad value is reported by the variable's name and never echoed, and every key
 * is registered as a secret: no log line will contain it.
 */
import { z } from 'zod';
import { registerSecret } from '../core/redact';

/** The variable holding the keys. */
export const ENCRYPTION_KEYS_VARIABLE = 'AMSFLOW_ENCRYPTION_KEYS';

/** The variable turning strict decoding on (`1`/`true`; see `EncryptionCodecOptions.strict`). */
export const ENCRYPTION_STRICT_VARIABLE = 'AMSFLOW_ENCRYPTION_STRICT';

/** `AMSFLOW_ENCRYPTION_STRICT`: `0`, `1`, `true` or `false` (default off). */
export const EncryptionStrictSchema = z
  .enum(['0', '1', 'true', 'false'], { errorMap: () => ({ message: 'must be 0, 1, true or false' }) })
  .transform((value) => value === '1' || value === 'true');

/** AES-256: a key is 32 bytes. */
export const KEY_BYTES = 32;

/** A key id: what payloads name in `encryption-key-id`; kept short and printable. */
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** One key: its id and its 32 bytes. */
export interface EncryptionKey {
  id: string;
  key: Buffer;
}

/**
 * Zod schema of the variable's text, to the keys (current first). Issues name the entry by its
 * position and id, never the key material.
 */
export const EncryptionKeysSchema = z.string().transform((text, ctx): EncryptionKey[] => {
  const problem = (message: string) => ctx.addIssue({ code: z.ZodIssueCode.custom, message });
  registerSecret(text.trim());
  // `off` says "no encryption" where the variable cannot be left unset (a compose file).
  if (text.trim().toLowerCase() === 'off') return [];
  if (text.trim() === '') {
    problem('is empty; unset it (or set it to off) to run without encryption');
    return [];
  }
  const entries = text.split(',').map((entry) => entry.trim());
  const keys: EncryptionKey[] = [];
  entries.forEach((entry, i) => {
    const at = entry.indexOf(':');
    const id = at < 0 ? '' : entry.slice(0, at).trim();
    const material = at < 0 ? '' : entry.slice(at + 1).trim();
    registerSecret(material);
    const which = `entry ${i + 1}${id ? ` ("${id}")` : ''}`;
    if (at < 0 || !material) return problem(`${which} is not id:base64key`);
    if (!KEY_ID.test(id)) return problem(`${which}: the id must be 1 to 64 letters, digits, ".", "_" or "-"`);
    const key = Buffer.from(material, 'base64');
    if (!BASE64.test(material) || material.length % 4 !== 0 || key.toString('base64') !== material)
      return problem(`${which}: the key is not valid base64`);
    if (key.length !== KEY_BYTES)
      return problem(
        `${which}: the key is ${key.length} bytes, AES-256 needs ${KEY_BYTES} (openssl rand -base64 32)`,
      );
    if (keys.some((k) => k.id === id)) return problem(`${which}: duplicate id "${id}"`);
    keys.push({ id, key });
  });
  return keys;
});

/** A bad `AMSFLOW_ENCRYPTION_KEYS` (or `AMSFLOW_ENCRYPTION_STRICT`): every problem, by entry, without key material. */
export class EncryptionKeysError extends Error {
  readonly code = 'AMSFLOW_ENCRYPTION_KEYS';
  constructor(
    readonly problems: string[],
    /** The variable at fault: the keys, or `AMSFLOW_ENCRYPTION_STRICT`. */
    readonly variable: string = ENCRYPTION_KEYS_VARIABLE,
  ) {
    super(problems.map((p) => `${variable}: ${p}`).join('\n'));
    this.name = 'EncryptionKeysError';
  }
}

/**
 * The keys of `env.AMSFLOW_ENCRYPTION_KEYS`, or undefined when it is unset or `off` (encryption
 * off; set but empty is an error, not off). For processes that do not load the worker configuration (the `amsflow` CLI).
 * Throws {@link EncryptionKeysError}.
 */
export function encryptionKeysFromEnv(env: NodeJS.ProcessEnv = process.env): EncryptionKey[] | undefined {
  const value = env[ENCRYPTION_KEYS_VARIABLE];
  if (value === undefined) return undefined;
  const parsed = EncryptionKeysSchema.safeParse(value);
  if (!parsed.success) throw new EncryptionKeysError(parsed.error.issues.map((issue) => issue.message));
  return parsed.data.length > 0 ? parsed.data : undefined;
}

/** Whether `env.AMSFLOW_ENCRYPTION_STRICT` turns strict decoding on; throws {@link EncryptionKeysError}. */
export function encryptionStrictFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env[ENCRYPTION_STRICT_VARIABLE];
  if (value === undefined) return false;
  const parsed = EncryptionStrictSchema.safeParse(value.trim());
  if (!parsed.success)
    throw new EncryptionKeysError(['must be 0, 1, true or false'], ENCRYPTION_STRICT_VARIABLE);
  return parsed.data;
}
