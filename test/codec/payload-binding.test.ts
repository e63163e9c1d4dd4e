/**
 * Payloads bound to their workflow (codec/payload-binding.ts, codec/encryption-codec.ts): the
 * namespace and workflow id of the SDK's serialization context are authenticated with each
 * payload, a payload read in another context is refused, payloads written before binding still
 * decode, and strict mode refuses what the keys did not write for the reader.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import {
  defaultPayloadConverter,
  type ActivitySerializationContext,
  type Payload,
  type WorkflowSerializationContext,
} from '@temporalio/common';
import {
  CONTEXT_METADATA,
  dataConverterFromEnv,
  ENCRYPTED_ENCODING,
  EncryptionCodec,
  EncryptionKeysError,
  KEY_ID_METADATA,
  type EncryptionKey,
} from '../../codec';
import { packPayload } from '../../codec/encryption-codec';
import { ConfigError, loadConfig } from '../../worker/config';

const key: EncryptionKey = { id: 'k1', key: randomBytes(32) };
const wf = (workflowId: string, namespace = 'default'): WorkflowSerializationContext => ({
  type: 'workflow',
  namespace,
  workflowId,
});
const activityOf = (workflowId: string): ActivitySerializationContext => ({
  type: 'activity',
  namespace: 'default',
  workflowId,
  activityId: '1',
  isLocal: false,
});
const payload = () => defaultPayloadConverter.toPayload({ text: 'zebra-5e1f private note' });
const meta = (p: Payload, name: string) => Buffer.from(p.metadata?.[name] ?? []).toString('utf8');

/** A payload as amsflow wrote it before binding: only the key id as associated data. */
function legacyEncrypt(p: Payload): Payload {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(Buffer.from(key.id, 'utf8'));
  const sealed = Buffer.concat([cipher.update(packPayload(p)), cipher.final()]);
  return {
    metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: Buffer.from(key.id) },
    data: Buffer.concat([iv, sealed, cipher.getAuthTag()]),
  };
}

describe('binding a payload to its workflow', () => {
  const codec = new EncryptionCodec([key]);

  it('writes the context into the metadata and reads it back in the same context', async () => {
    const [sealed] = await codec.encode([payload()], wf('agent:a'));
    expect(Object.keys(sealed.metadata!)).toEqual(['encoding', KEY_ID_METADATA, CONTEXT_METADATA]);
    expect(JSON.parse(meta(sealed, CONTEXT_METADATA))).toEqual({
      namespace: 'default',
      workflowId: 'agent:a',
    });
    const [plain] = await codec.decode([sealed], wf('agent:a'));
    expect(defaultPayloadConverter.fromPayload(plain)).toEqual({ text: 'zebra-5e1f private note' });
    // An activity of that workflow reads what the workflow wrote for it, and the other way round.
    expect(await codec.decode([sealed], activityOf('agent:a'))).toEqual([plain]);
    const [result] = await codec.encode([payload()], activityOf('agent:a'));
    expect(await codec.decode([result], wf('agent:a'))).toEqual([plain]);
  });

  it('refuses a payload copied into another workflow or namespace', async () => {
    const [sealed] = await codec.encode([payload()], wf('agent:a:msg:1'));
    for (const reader of [wf('agent:b'), wf('agent:a:msg:1', 'other'), activityOf('approval:a:9')]) {
      const decoding = codec.decode([sealed], reader);
      await expect(decoding).rejects.toMatchObject({
        name: 'EncryptionCodecError',
        problem: 'wrong-context',
      });
      await expect(decoding).rejects.toThrow(/written for workflow "agent:a:msg:1" in namespace "default"/);
    }
  });

  it('authenticates the context: relabelling it to the reader does not help', async () => {
    const [sealed] = await codec.encode([payload()], wf('agent:a'));
    const relabelled: Payload = {
      ...sealed,
      metadata: {
        ...sealed.metadata,
        [CONTEXT_METADATA]: Buffer.from('{"namespace":"default","workflowId":"agent:b"}'),
      },
    };
    await expect(codec.decode([relabelled], wf('agent:b'))).rejects.toMatchObject({ problem: 'tampered' });
    const garbled = { ...sealed, metadata: { ...sealed.metadata, [CONTEXT_METADATA]: Buffer.from('{') } };
    await expect(codec.decode([garbled], wf('agent:a'))).rejects.toMatchObject({ problem: 'tampered' });
  });

  it('a reader without a context (a history read by hand) decodes any bound payload', async () => {
    const [sealed] = await codec.encode([payload()], wf('agent:a'));
    const [plain] = await codec.decode([sealed]);
    expect(defaultPayloadConverter.fromPayload(plain)).toEqual({ text: 'zebra-5e1f private note' });
  });

  it('keeps payloads written before binding decodable (running histories, key rotation)', async () => {
    const old = legacyEncrypt(payload());
    const rotated = new EncryptionCodec([{ id: 'k2', key: randomBytes(32) }, key]);
    const [plain] = await rotated.decode([old], wf('agent:a'));
    expect(defaultPayloadConverter.fromPayload(plain)).toEqual({ text: 'zebra-5e1f private note' });
    // Its key id is still authenticated.
    const relabelled = { ...old, metadata: { ...old.metadata, [KEY_ID_METADATA]: Buffer.from('k2') } };
    await expect(rotated.decode([relabelled], wf('agent:a'))).rejects.toMatchObject({ problem: 'tampered' });
  });
});

describe('strict mode', () => {
  const strict = new EncryptionCodec([key], { strict: true });

  it('refuses unencrypted payloads and payloads written before binding', async () => {
    await expect(strict.decode([payload()], wf('agent:a'))).rejects.toMatchObject({ problem: 'unencrypted' });
    await expect(strict.decode([legacyEncrypt(payload())], wf('agent:a'))).rejects.toMatchObject({
      problem: 'unbound',
    });
  });

  it('refuses a payload bound to no workflow where the reader is one; accepts its own', async () => {
    const [unbound] = await strict.encode([payload()]);
    await expect(strict.decode([unbound], wf('agent:a'))).rejects.toMatchObject({ problem: 'wrong-context' });
    const [namespaceOnly] = await strict.encodeFor([payload()], { namespace: 'default' });
    await expect(strict.decode([namespaceOnly], wf('agent:a'))).rejects.toThrow(
      /strict mode needs its workflow/,
    );
    expect(await strict.decodeFor([namespaceOnly], { namespace: 'default' })).toHaveLength(1);
    const [own] = await strict.encode([payload()], wf('agent:a'));
    expect(await strict.decode([own], wf('agent:a'))).toHaveLength(1);
    // Lenient: the same namespace-only payload is accepted in any workflow of its namespace.
    expect(await new EncryptionCodec([key]).decode([namespaceOnly], wf('agent:a'))).toHaveLength(1);
  });

  it('is AMSFLOW_ENCRYPTION_STRICT for the worker and the CLI; a bad value is named', () => {
    const keys = `k1:${key.key.toString('base64')}`;
    expect(
      loadConfig({ AMSFLOW_ENCRYPTION_KEYS: keys, AMSFLOW_ENCRYPTION_STRICT: '1' }).encryptionStrict,
    ).toBe(true);
    expect(loadConfig({ AMSFLOW_ENCRYPTION_KEYS: keys }).encryptionStrict).toBeUndefined();
    expect(() => loadConfig({ AMSFLOW_ENCRYPTION_STRICT: 'yes' })).toThrow(ConfigError);
    expect(() => loadConfig({ AMSFLOW_ENCRYPTION_STRICT: 'yes' })).toThrow(
      /AMSFLOW_ENCRYPTION_STRICT: must be 0, 1/,
    );
    const converter = dataConverterFromEnv({
      AMSFLOW_ENCRYPTION_KEYS: keys,
      AMSFLOW_ENCRYPTION_STRICT: 'true',
    });
    const codec = converter!.payloadCodecs![0] as EncryptionCodec;
    return expect(codec.decode([payload()]))
      .rejects.toMatchObject({ problem: 'unencrypted' })
      .then(() =>
        expect(() =>
          dataConverterFromEnv({ AMSFLOW_ENCRYPTION_KEYS: keys, AMSFLOW_ENCRYPTION_STRICT: 'on' }),
        ).toThrow(EncryptionKeysError),
      );
  });
});
