/**
 * Every error code amsflow's own errors carry, in one table: `AMSFLOW_<WHAT>`, upper snake case,
 * stable (callers and the CLI match on them; a code is never reused for another meaning). The
 * messaging client's codes are its own table in the same style under its own prefix, `AMS_*`
 * (messaging/errors.ts), as that client talks to the Agent Messaging Service and is usable alone.
 *
 * Not codes of this table, on purpose:
 * - Temporal failure type names (`AmbiguousSend`, `InvalidOption`, `WaitTimeout`, ...): the
 *   `type` of an `ApplicationFailure` that workflow code and tests catch by name, across a
 *   workflow boundary; they are a contract of their own (protocol/ and activities/types.ts).
 * - The simulator's wire error codes (numbers, `error.code` of the spec's error object).
 *
 * Pure and dependency-free: workflow code, the client, the worker and the simulator all use it.
 * Listed in docs/OPERATIONS.md ("Error codes"); a test keeps the two and the code in step.
 */
export const AmsflowErrorCodes = {
  // Start and configuration (worker/).
  /** The environment is invalid: every bad variable is named (exit 1). */
  config: 'AMSFLOW_CONFIG',
  /** A port amsflow needs is taken. */
  portInUse: 'AMSFLOW_PORT_IN_USE',
  /** The metrics endpoint's port is taken. */
  metricsPortInUse: 'AMSFLOW_METRICS_PORT_IN_USE',
  /** The embedded Temporal dev server did not start. */
  devServerStart: 'AMSFLOW_DEV_SERVER_START',
  /** Temporal cannot be reached with the connection settings given (TLS, API key, address). */
  temporalConnect: 'AMSFLOW_TEMPORAL_CONNECT',
  /** Another amsflow holds the data dir. */
  dataDirInUse: 'AMSFLOW_DATA_DIR_IN_USE',
  /** The bot's workflow module cannot be used (no handler, does not bundle). */
  botModule: 'AMSFLOW_BOT_MODULE',
  /** The bot's activities module (`AMSFLOW_ACTIVITIES`) cannot be loaded or exports no function. */
  botActivities: 'AMSFLOW_BOT_ACTIVITIES',
  /** The worker's build could not be made current (`AMSFLOW_PROMOTE`). */
  promotion: 'AMSFLOW_PROMOTION',
  /** `AMSFLOW_ENCRYPTION_KEYS` is invalid. */
  encryptionKeys: 'AMSFLOW_ENCRYPTION_KEYS',
  /** A payload cannot be encrypted or decrypted (unknown key id, tampered data). */
  encryptionCodec: 'AMSFLOW_ENCRYPTION_CODEC',
  /** `amsflow codec-server` would serve anyone (no authentication beyond loopback or with encode). */
  codecServerConfig: 'AMSFLOW_CODEC_SERVER_CONFIG',
  /** The Temporal binaries are missing (tools/temporal-binaries.ts). */
  toolsUnavailable: 'AMSFLOW_TOOLS_UNAVAILABLE',
  /** The cluster tools are missing (scripts/cluster-tools.ts). */
  clusterToolsMissing: 'AMSFLOW_CLUSTER_TOOLS_MISSING',
  // The embedded simulator (simulator/).
  /** The simulator's state file cannot be used. */
  simulatorState: 'AMSFLOW_SIMULATOR_STATE',
  // The client library and the CLI (client/).
  /** `amsflow init` cannot write the project. */
  init: 'AMSFLOW_INIT',
  /** An agent key that cannot be part of a workflow id; nothing was started. */
  invalidAgentKey: 'AMSFLOW_INVALID_AGENT_KEY',
  /** A malformed approval request (see the error's `field`); nothing was started. */
  invalidApprovalRequest: 'AMSFLOW_INVALID_APPROVAL_REQUEST',
  /** No approval with that id. */
  approvalNotFound: 'AMSFLOW_APPROVAL_NOT_FOUND',
  /** The approval has ended already (see the error's `decision`). */
  approvalClosed: 'AMSFLOW_APPROVAL_CLOSED',
  /** The approval workflow ended without a decision. */
  approvalFailed: 'AMSFLOW_APPROVAL_FAILED',
  /** No workflow with that id. */
  conversationNotFound: 'AMSFLOW_CONVERSATION_NOT_FOUND',
  /** The workflow does not answer the conversation query. */
  notAConversation: 'AMSFLOW_NOT_A_CONVERSATION',
  /** The conversation's workflow has ended. */
  conversationClosed: 'AMSFLOW_CONVERSATION_CLOSED',
  /** The conversation query got no answer (no worker, or none in time). */
  conversationUnreachable: 'AMSFLOW_CONVERSATION_UNREACHABLE',
  // Pure helpers (core/).
  /** Text that is not a duration (`10m`, `2h`...). */
  invalidDuration: 'AMSFLOW_INVALID_DURATION',
} as const;

export type AmsflowErrorCode = (typeof AmsflowErrorCodes)[keyof typeof AmsflowErrorCodes];
