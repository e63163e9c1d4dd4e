/**
 * Payloads that do not decode (codec/undecodable.ts): the worker's codec hands a workflow's
 * payload it refuses on as a marker carrying its reason, one payload at a time, and refuses an
 * activity's as before; amsflow's payload converter converts every other payload exactly as the
 * default converter does (histories replay unchanged) and refuses a marker with the codec's own
 * message; and the workflow side (workflows/author/checked-handlers.ts) recognises the marker and
 * every payload the converter cannot convert, naming its encoding and never its content.
 */
import { randomBytes } from 'node:crypto';
import {
  defaultPayloadConverter,
  type ActivitySerializationContext,
  type Payload,
  type WorkflowSerializationContext,
} from '@temporalio/common';
import { decodeFromPayloadsAtIndex, loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import {
  dataConverterFor,
  EncryptionCodec,
  EncryptionCodecError,
  UNDECODABLE_ENCODING,
  UNDECODABLE_REASON_METADATA,
  UndecodableMarkingCodec,
  UndecodablePayloadError,
  type EncryptionKey,
} from '../../codec';
import { payloadConverter, undecodableMarker } from '../../codec/undecodable';
import * as workflowSide from '../../workflows/author/checked-handlers';

const key: EncryptionKey = { id: 'k1', key: randomBytes(32) };
const wf = (workflowId: string): WorkflowSerializationContext => ({
  type: 'workflow',
  namespace: 'default',
  workflowId,
});
const activity: ActivitySerializationContext = {
  type: 'activity',
  namespace: 'default',
  workflowId: 'agent:a',
  activityId: '1',
  isLocal: false,
};
const SECRET = 'zebra-41c7 private note';
const plain = (value: unknown) => defaultPayloadConverter.toPayload(value);
const meta = (p: Payload, name: string) => Buffer.from(p.metadata?.[name] ?? []).toString('utf8');
/** What `temporal workflow signal --input-meta encoding=binary/encrypted` sends without keys. */
const forgedEncrypted = (): Payload => ({
  metadata: { encoding: Buffer.from('binary/encrypted') },
  data: Buffer.from(`"${SECRET}"`),
});

describe('the marking codec', () => {
  const codec = new UndecodableMarkingCodec(new EncryptionCodec([key]));

  it("decodes what it can of a workflow's payloads and marks each one it cannot, with the codec's reason", async () => {
    const [good] = await codec.encode([plain({ text: SECRET })], wf('agent:a'));
    const [copied] = await codec.encode([plain({ text: SECRET })], wf('agent:b'));
    const decoded = await codec.decode([good, forgedEncrypted(), copied, plain('as is')], wf('agent:a'));
    expect(defaultPayloadConverter.fromPayload(decoded[0])).toEqual({ text: SECRET });
    expect(meta(decoded[1], 'encoding')).toBe(UNDECODABLE_ENCODING);
    expect(meta(decoded[1], UNDECODABLE_REASON_METADATA)).toMatch(
      /^Cannot decrypt a payload encrypted with key ""/,
    );
    expect(meta(decoded[2], UNDECODABLE_REASON_METADATA)).toContain(
      'it was written for workflow "agent:b" in namespace "default", not for workflow "agent:a"',
    );
    // A payload written before encryption passes as it is (the codec is not strict).
    expect(defaultPayloadConverter.fromPayload(decoded[3])).toBe('as is');
    for (const marker of decoded.slice(1, 3)) {
      expect(marker.data).toHaveLength(0);
      expect(JSON.stringify(marker.metadata)).not.toContain('zebra');
    }
  });

  it("refuses an activity's payload, and one without a context, as the codec does", async () => {
    await expect(codec.decode([forgedEncrypted()], activity)).rejects.toBeInstanceOf(EncryptionCodecError);
    await expect(codec.decode([forgedEncrypted()])).rejects.toBeInstanceOf(EncryptionCodecError);
  });

  it('encodes as the codec it wraps', async () => {
    const [sealed] = await codec.encode([plain('x')], wf('agent:a'));
    const [opened] = await new EncryptionCodec([key]).decode([sealed], wf('agent:a'));
    expect(defaultPayloadConverter.fromPayload(opened)).toBe('x');
  });
});

describe("amsflow's payload converter", () => {
  const values: unknown[] = [
    undefined,
    null,
    0,
    -1.5,
    '',
    'text with ü and 👍',
    true,
    [1, 'two', { three: [3] }],
    { message: { id: 'wamid.1', text: { body: 'hi' } }, seq: 3 },
    new Uint8Array([0, 1, 255]),
  ];

  it.each(values.map((v) => [v]))('converts %p exactly as the default converter', (value) => {
    const ours = payloadConverter.toPayload(value);
    expect(ours).toEqual(defaultPayloadConverter.toPayload(value));
    expect(payloadConverter.fromPayload(ours)).toEqual(defaultPayloadConverter.fromPayload(ours));
  });

  it("refuses a marker with the codec's reason (a start argument, a child's result: as before)", () => {
    const refusal = (() => {
      try {
        payloadConverter.fromPayload(undecodableMarker('Cannot decrypt a payload encrypted with key "k9"'));
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(UndecodablePayloadError);
    expect(refusal).toMatchObject({
      code: 'AMSFLOW_ENCRYPTION_CODEC',
      message: 'Cannot decrypt a payload encrypted with key "k9"',
    });
  });

  it("gives a client the codec's own message for a result it cannot decode", async () => {
    const loaded = loadDataConverter(dataConverterFor([key]));
    const [copied] = await new EncryptionCodec([key]).encode([plain(SECRET)], wf('agent:b'));
    const decoding = decodeFromPayloadsAtIndex(loaded, 0, [copied], wf('agent:a'));
    await expect(decoding).rejects.toThrow('it was written for workflow "agent:b"');
  });
});

describe('the workflow side', () => {
  it('knows the marker by the names the codec writes', () => {
    expect(workflowSide.UNDECODABLE_ENCODING).toBe(UNDECODABLE_ENCODING);
    expect(workflowSide.UNDECODABLE_REASON_METADATA).toBe(UNDECODABLE_REASON_METADATA);
  });

  it('names why a payload does not convert by its encoding, never its content', () => {
    const problem = workflowSide.undecodableProblem;
    expect(problem(undecodableMarker('Cannot decrypt a payload encrypted with key "k9"'))).toBe(
      'the worker\'s codec refused it (Cannot decrypt a payload encrypted with key "k9")',
    );
    expect(problem(forgedEncrypted())).toBe('no converter knows its encoding "binary/encrypted"');
    const badJson = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(`{"${SECRET}`) };
    expect(problem(badJson)).toBe('its data is not valid "json/plain"');
    expect(problem({ metadata: {}, data: Buffer.from(SECRET) })).toBe('no converter knows its encoding ""');
    const odd = { metadata: { encoding: Buffer.from(`x\n${'y'.repeat(200)}`) } };
    expect(problem(odd)).toMatch(/^no converter knows its encoding "x\?y{58}"$/);
    for (const value of [undefined, null, 'x', { a: 1 }, new Uint8Array([1])])
      expect(problem(defaultPayloadConverter.toPayload(value))).toBeUndefined();
  });
});
