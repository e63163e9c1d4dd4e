/**
 * Encryption at rest (`AMSFLOW_ENCRYPTION_KEYS`): the AES-256-GCM payload codec, the keys, the
 * data converter every amsflow client and worker uses when keys are set (with what becomes of a
 * payload it cannot decode: undecodable.ts), and the codec server for the Temporal UI. See
 * docs/OPERATIONS.md, "Encryption at rest", and README.md beside this file.
 */
export {
  EncryptionCodec,
  EncryptionCodecError,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  type EncryptionCodecOptions,
  type EncryptionCodecProblem,
} from './encryption-codec';
export { CONTEXT_METADATA, type PayloadBinding } from './payload-binding';
export {
  EncryptionKeysError,
  EncryptionKeysSchema,
  ENCRYPTION_KEYS_VARIABLE,
  encryptionKeysFromEnv,
  encryptionStrictFromEnv,
  ENCRYPTION_STRICT_VARIABLE,
  type EncryptionKey,
} from './keys';
export {
  dataConverterFor,
  dataConverterFromEnv,
  FAILURE_CONVERTER_PATH,
  PAYLOAD_CONVERTER_PATH,
} from './data-converter';
export {
  UndecodableMarkingCodec,
  UndecodablePayloadError,
  UNDECODABLE_ENCODING,
  UNDECODABLE_REASON_METADATA,
} from './undecodable';
export {
  CodecServerConfigError,
  DEFAULT_CODEC_SERVER_PORT,
  DEFAULT_UI_ORIGINS,
  startCodecServer,
  type BindingCodec,
  type CodecServer,
  type CodecServerOptions,
} from './codec-server';
export { codecTokenProblem, type CodecAuthOptions } from './codec-auth';
export { oidcUrlProblem, type OidcOptions } from './oidc';
