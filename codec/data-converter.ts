/**
 * The data converter every Temporal client and worker of amsflow uses when encryption keys are
 * configured: the {@link EncryptionCodec} for payloads (a workflow's payload it cannot decode
 * becomes a marker instead of failing the whole workflow task: undecodable.ts), amsflow's payload
 * converter (the default one, plus that marker), and a failure converter that moves failure
 * messages and stack traces into (encrypted) payloads. Undefined when encryption is off.
 */
import type { DataConverter } from '@temporalio/common';
import { EncryptionCodec, type EncryptionCodecOptions } from './encryption-codec';
import { encryptionKeysFromEnv, encryptionStrictFromEnv, type EncryptionKey } from './keys';
import { UndecodableMarkingCodec } from './undecodable';

/**
 * Path of the module exporting the encoding `failureConverter`. A workflow bundle built ahead
 * (`AMSFLOW_WORKFLOW_BUNDLE`) must be built with `bundleWorkflowCode({ failureConverterPath })`
 * set to it, or failures raised in workflow code keep their messages in plain text.
 */
export const FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');

/**
 * Path of the module exporting amsflow's `payloadConverter` (undecodable.ts). Every amsflow
 * workflow bundle is built with it (`bundleBot`); without it a payload the codec refused still
 * fails the workflow task where it is no signal argument, with a vaguer message
 * (`Unknown encoding: amsflow/undecodable`).
 */
export const PAYLOAD_CONVERTER_PATH = require.resolve('./undecodable');

/**
 * The encrypting data converter for `keys` (current first), or undefined without keys.
 * `options.strict`: decode only bound, encrypted payloads (`AMSFLOW_ENCRYPTION_STRICT`).
 */
export function dataConverterFor(
  keys: readonly EncryptionKey[] | undefined,
  options: EncryptionCodecOptions = {},
): DataConverter | undefined {
  if (!keys || keys.length === 0) return undefined;
  return {
    payloadCodecs: [new UndecodableMarkingCodec(new EncryptionCodec(keys, options))],
    payloadConverterPath: PAYLOAD_CONVERTER_PATH,
    failureConverterPath: FAILURE_CONVERTER_PATH,
  };
}

/**
 * The data converter for `env.AMSFLOW_ENCRYPTION_KEYS` (undefined when unset) and
 * `env.AMSFLOW_ENCRYPTION_STRICT`. Throws `EncryptionKeysError` for a bad value.
 */
export function dataConverterFromEnv(env: NodeJS.ProcessEnv = process.env): DataConverter | undefined {
  return dataConverterFor(encryptionKeysFromEnv(env), { strict: encryptionStrictFromEnv(env) });
}
