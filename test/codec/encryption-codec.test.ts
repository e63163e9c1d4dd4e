/**
 * The AES-256-GCM payload codec (codec/): round trips, the key id in the metadata,
 * rotation, unknown keys and tampering; and `AMSFLOW_ENCRYPTION_KEYS` as the worker and the CLI
 * read it.
 */
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  decodeOptionalFailureToOptionalError,
  encodeErrorToFailure,
  loadDataConverter,
} from '@temporalio/common/lib/internal-non-workflow';
import { ConfigError, loadConfig } from '../../worker/config';
import {
  CONTEXT_METADATA,
  dataConverterFor,
  ENCRYPTED_ENCODING,
  EncryptionCodec,
  EncryptionCodecError,
  encryptionKeysFromEnv,
  EncryptionKeysError,
  KEY_ID_METADATA,
  UndecodableMarkingCodec,
  type EncryptionKey,
} from '../../codec';
import { redactText, REDACTED } from '../../core/redact';

const key = (id: string): EncryptionKey => ({ id, key: randomBytes(32) });
const env = (...keys: EncryptionKey[]) => keys.map((k) => `${k.id}:${k.key.toString('base64')}`).join(',');
const meta = (p: Payload, name: string) => Buffer.from(p.metadata?.[name] ?? []).toString('utf8');
const body = 'echo zebra-7f3a: the secret plans';
const payload = () => defaultPayloadConverter.toPayload({ text: body, n: 1 });

describe('EncryptionCodec', () => {
  const a = key('a');

  it('round-trips payloads, hiding their data and metadata; each with its own IV', async () => {
    const codec = new EncryptionCodec([a]);
    const [one, two] = await codec.encode([payload(), payload()]);
    expect(meta(one, 'encoding')).toBe(ENCRYPTED_ENCODING);
    expect(meta(one, KEY_ID_METADATA)).toBe('a');
    expect(Object.keys(one.metadata!)).toEqual(['encoding', KEY_ID_METADATA, CONTEXT_METADATA]);
    expect(Buffer.from(one.data!).toString('latin1')).not.toContain('zebra');
    expect(Buffer.from(one.data!).equals(Buffer.from(two.data!))).toBe(false);
    const [decoded] = await codec.decode([one]);
    expect(meta(decoded, 'encoding')).toBe('json/plain');
    expect(defaultPayloadConverter.fromPayload(decoded)).toEqual({ text: body, n: 1 });
  });

  it('keeps empty data and binary metadata; passes unencrypted payloads through', async () => {
    const codec = new EncryptionCodec([a]);
    const odd: Payload = { metadata: { encoding: Buffer.from('binary/null'), x: new Uint8Array([0, 255]) } };
    const [decoded] = await codec.decode(await codec.encode([odd]));
    expect(Buffer.from(decoded.data!).length).toBe(0);
    expect([...decoded.metadata!.x]).toEqual([0, 255]);
    const plain = payload();
    expect(await codec.decode([plain])).toEqual([plain]);
    expect(await codec.encode([])).toEqual([]);
  });

  it('rotates: encrypts with the first key, decrypts with whichever key a payload names', async () => {
    const b = key('b');
    const old = await new EncryptionCodec([a]).encode([payload()]);
    const rotated = new EncryptionCodec([b, a]);
    expect(rotated.currentKeyId).toBe('b');
    const fresh = await rotated.encode([payload()]);
    expect(meta(fresh[0], KEY_ID_METADATA)).toBe('b');
    const decoded = await rotated.decode([...old, ...fresh]);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([
      { text: body, n: 1 },
      { text: body, n: 1 },
    ]);
  });

  it('an unknown key id: a typed error naming the id', async () => {
    const old = await new EncryptionCodec([a]).encode([payload()]);
    const decoding = new EncryptionCodec([key('b')]).decode(old);
    await expect(decoding).rejects.toThrow(EncryptionCodecError);
    await expect(decoding).rejects.toMatchObject({ problem: 'unknown-key', keyId: 'a' });
    await expect(decoding).rejects.toThrow(/key "a": no such key in AMSFLOW_ENCRYPTION_KEYS/);
  });

  it('a tampered, truncated or relabelled payload: a typed error, never wrong data', async () => {
    const codec = new EncryptionCodec([a, { id: 'a2', key: a.key }]);
    const [sealed] = await codec.encode([payload()]);
    const flipped = Buffer.from(sealed.data!);
    flipped[20] ^= 1;
    const cases: Payload[] = [
      { ...sealed, data: flipped },
      { ...sealed, data: Buffer.from(sealed.data!).subarray(0, 20) },
      { ...sealed, metadata: { ...sealed.metadata, [KEY_ID_METADATA]: Buffer.from('a2') } },
    ];
    for (const bad of cases) {
      await expect(codec.decode([bad])).rejects.toMatchObject({
        name: 'EncryptionCodecError',
        problem: 'tampered',
      });
    }
  });

  it('refuses no keys and keys of the wrong length', () => {
    expect(() => new EncryptionCodec([])).toThrow(TypeError);
    expect(() => new EncryptionCodec([{ id: 'x', key: randomBytes(16) }])).toThrow(/not 32 bytes/);
  });
});

describe('the encrypting data converter', () => {
  it('encrypts failure messages and stack traces too', async () => {
    const converter = loadDataConverter(dataConverterFor([key('a')]));
    const failure = await encodeErrorToFailure(converter, new Error('cannot reach zebra-9c1d'));
    expect(failure.message).not.toContain('zebra');
    expect(failure.stackTrace ?? '').not.toContain('zebra');
    expect(meta(failure.encodedAttributes!, 'encoding')).toBe(ENCRYPTED_ENCODING);
    const error = await decodeOptionalFailureToOptionalError(converter, failure);
    expect(error?.message).toBe('cannot reach zebra-9c1d');
  });
});

describe('AMSFLOW_ENCRYPTION_KEYS', () => {
  const problemsOf = (value: string): string[] => {
    try {
      loadConfig({ AMSFLOW_ENCRYPTION_KEYS: value });
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    throw new Error('expected a ConfigError');
  };

  it('off when unset; the keys in order, current first, when set', () => {
    expect(loadConfig({}).encryptionKeys).toBeUndefined();
    expect(dataConverterFor(undefined)).toBeUndefined();
    const [a, b] = [key('new'), key('old-1')];
    const keys = loadConfig({ AMSFLOW_ENCRYPTION_KEYS: ` ${env(a, b)} ` }).encryptionKeys!;
    expect(keys.map((k) => k.id)).toEqual(['new', 'old-1']);
    expect(keys[0].key.equals(a.key)).toBe(true);
    expect(encryptionKeysFromEnv({ AMSFLOW_ENCRYPTION_KEYS: env(a, b) })!.map((k) => k.id)).toEqual([
      'new',
      'old-1',
    ]);
    expect(encryptionKeysFromEnv({})).toBeUndefined();
    const converter = dataConverterFor(keys)!;
    const codec = converter.payloadCodecs![0] as UndecodableMarkingCodec;
    expect(codec).toBeInstanceOf(UndecodableMarkingCodec);
    expect(codec.inner).toBeInstanceOf(EncryptionCodec);
    expect(converter.failureConverterPath).toMatch(/failure-converter\.(ts|js)$/);
    expect(converter.payloadConverterPath).toMatch(/undecodable\.(ts|js)$/);
  });

  it('names the variable and the entry for bad base64, a wrong length, a duplicate id, a bad entry', () => {
    const good = key('k').key.toString('base64');
    const short = randomBytes(16).toString('base64');
    const problems = problemsOf(`k:${good},x:not*base64!,s:${short},k:${good},nocolon,:${good}`);
    expect(problems).toEqual([
      'AMSFLOW_ENCRYPTION_KEYS: entry 2 ("x"): the key is not valid base64',
      'AMSFLOW_ENCRYPTION_KEYS: entry 3 ("s"): the key is 16 bytes, AES-256 needs 32 (openssl rand -base64 32)',
      'AMSFLOW_ENCRYPTION_KEYS: entry 4 ("k"): duplicate id "k"',
      'AMSFLOW_ENCRYPTION_KEYS: entry 5 is not id:base64key',
      'AMSFLOW_ENCRYPTION_KEYS: entry 6: the id must be 1 to 64 letters, digits, ".", "_" or "-"',
    ]);
    expect(problems.join('\n')).not.toContain(good);
    expect(problemsOf('  ')).toEqual([
      'AMSFLOW_ENCRYPTION_KEYS: is empty; unset it (or set it to off) to run without encryption',
    ]);
    // `off` is no encryption, for a compose file that cannot leave the variable unset.
    expect(loadConfig({ AMSFLOW_ENCRYPTION_KEYS: 'off' }).encryptionKeys).toBeUndefined();
    expect(encryptionKeysFromEnv({ AMSFLOW_ENCRYPTION_KEYS: ' OFF ' })).toBeUndefined();
    expect(() => encryptionKeysFromEnv({ AMSFLOW_ENCRYPTION_KEYS: `s:${short}` })).toThrow(
      EncryptionKeysError,
    );
    expect(() => encryptionKeysFromEnv({ AMSFLOW_ENCRYPTION_KEYS: `s:${short}` })).toThrow(
      /^AMSFLOW_ENCRYPTION_KEYS: entry 1 \("s"\): the key is 16 bytes/,
    );
  });

  it('registers every key as a secret: no log line can show it', () => {
    const a = key('a');
    loadConfig({ AMSFLOW_ENCRYPTION_KEYS: env(a) });
    const material = a.key.toString('base64');
    expect(redactText(`keys=${env(a)} key=${material}`)).not.toContain(material);
    expect(redactText(`key=${material}`)).toBe(`key=${REDACTED}`);
  });
});
