/**
 * The contract of model turns between workflow code (`workflows/models/`) and the model
 * activities (`activities/model-calls.ts`): the chat as a model sees it, one call's input and
 * output, the failure types, and the per-agent memory workflow's id, type, signal, update and
 * query. Side-effect free (definitions only). The provider and its key live in the worker: no
 * name here carries either.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

/** A tool call the model asked for, as kept in the chat. `input` is what the model wrote. */
export interface ChatToolCall {
  id: string;
  name: string;
  input: unknown;
}

/** What became of a tool call, as the model is told. `isError`: it did not run, or it failed. */
export interface ChatToolResult {
  id: string;
  name: string;
  output: unknown;
  isError?: boolean;
}

/** One message of the chat a model sees: the human's, the model's own, or tool results. */
export type ChatMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls?: ChatToolCall[] }
  | { role: 'tool'; results: ChatToolResult[] };

/** A tool offered to the model: its input as JSON Schema (made from the tool's zod schema). */
export interface ModelToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** One model call (the `amsflowModelCall` activity). */
export interface ModelCallInput {
  agentKey: string;
  system?: string;
  /** This turn's messages. With `memory`, the agent's remembered turns go before them. */
  messages: ChatMessage[];
  /** Read the agent's memory (`memory:<agentKey>`) and put it before `messages`. */
  memory: boolean;
  tools: ModelToolSpec[];
  /**
   * The workflow's now: the system prompt then ends with the human's date, time and zone at this
   * instant (a turn with reminder tools asks for it; the zone is the human's, as reminders use it).
   */
  clockAt?: number;
  maxOutputTokens?: number;
  temperature?: number;
}

/** A tool call in a model's answer; `problem` when its input was not even JSON. */
export interface ModelToolCall extends ChatToolCall {
  problem?: string;
}

/** Tokens one call used (0 when the provider did not say). */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

/** What one model call answered; `notConfigured` when the worker has no model. */
export type ModelCallOutput =
  | {
      status: 'answered';
      text: string;
      toolCalls: ModelToolCall[];
      finishReason: string;
      usage: ModelUsage;
      /** The provider and model that answered (`openai:gpt-4o-mini`), for operators. */
      model: string;
    }
  | { status: 'notConfigured' };

/** What the model activities fail with (`ApplicationFailure.type`). */
export const MODEL_FAILURE_TYPES = {
  /** 429, 5xx, 408/409, a dropped connection, a timeout: retried with the model call's backoff. */
  unavailable: 'ModelUnavailable',
  /** Any other 4xx (a wrong key, model or request): not retried. */
  refused: 'ModelRefused',
} as const;

/** The workflow type of an agent's model memory (a bot bundle carries it, like the reminders'). */
export const MEMORY_WORKFLOW_TYPE = 'modelMemoryWorkflow';

/** An agent's model memory: one workflow per agent. */
export function memoryWorkflowId(agentKey: string): string {
  return `memory:${agentKey}`;
}

/** One remembered turn: the human's message(s), the model's answers and the tool calls between. */
export interface MemoryTurn {
  /** Unique per turn: a write retried after it arrived is ignored. */
  id: string;
  /** When the turn ended (epoch ms, workflow time). */
  at: number;
  messages: ChatMessage[];
}

/** How much an agent's memory keeps: the newest whole turns within both bounds. */
export interface MemoryLimits {
  turns: number;
  /** UTF-8 bytes of the turns as JSON. */
  bytes: number;
}

/** Default memory bounds; a turn's options may change them. */
export const DEFAULT_MEMORY_LIMITS: MemoryLimits = { turns: 30, bytes: 48 * 1024 };
/** The most a memory may keep (it is carried across continue-as-new). */
export const MAX_MEMORY_BYTES = 256 * 1024;

/** A change to an agent's memory. */
export type MemoryCommand = { op: 'append'; turn: MemoryTurn; limits: MemoryLimits };

/** The memory's state, as its query and `amsflow conversations show memory:<agent>` show it. */
export interface MemoryView {
  turns: MemoryTurn[];
  limits: MemoryLimits;
  /** Turns dropped to stay within the limits, since the memory began. */
  dropped: number;
  /** Turns forgotten by `amsflow conversations forget`. */
  forgotten: number;
  /** UTF-8 bytes of `turns` as JSON. */
  bytes: number;
}

/** The memory workflow's input (and what it carries across continue-as-new). */
export interface MemoryInput {
  agentKey: string;
  turns?: MemoryTurn[];
  limits?: MemoryLimits;
  dropped?: number;
  forgotten?: number;
  /** Ids of turns appended lately (a retried append must not bring one back). */
  seen?: string[];
  /** History events after which it continues as new. Default 2000. */
  continueAfterEvents?: number;
}

/** Appends a turn (signal-with-start from `amsflowMemoryWrite`). */
export const memoryCommandSignal = defineSignal<[MemoryCommand]>('amsflow.memory.command');
/** The memory's state. */
export const memoryQuery = defineQuery<MemoryView>('amsflow.memory');
/** Forgets every turn (`amsflow conversations forget`); answers how many were forgotten. */
export const forgetMemoryUpdate = defineUpdate<{ forgotten: number }, []>('amsflow.memory.forget');

/** The model activities, registered on the workflow task queue (they hold a Temporal client). */
export interface ModelActivities {
  /** The worker's model (`openai:gpt-4o-mini`), or null when it has none: a turn's first check. */
  amsflowModelName(): Promise<string | null>;
  amsflowModelCall(input: ModelCallInput): Promise<ModelCallOutput>;
  amsflowMemoryWrite(agentKey: string, command: MemoryCommand): Promise<void>;
}
