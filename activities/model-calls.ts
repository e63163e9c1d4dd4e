/**
 * The model activities: one model call (`amsflowModelCall`) and the write of a turn to the
 * agent's memory (`amsflowMemoryWrite`). Register them on the workflow task queue, next to the
 * bot's own:
 *
 *   activities: { ...createModelActivities(client, { taskQueue, model }), ...botActivities }
 *
 * A call is one HTTP attempt through the AI SDK (`generateText`, `maxRetries: 0`): Temporal
 * retries it, with the backoff the workflow sets, so retries survive a worker's death and are
 * counted in history. The model is the worker's (its key never leaves this process); the tools
 * are offered by schema only, so the SDK runs none of them: the workflow decides what runs.
 * Nothing here logs a prompt or an output.
 */
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { generateText, jsonSchema, tool, type LanguageModel, type Tool } from 'ai';
import {
  DEFAULT_MEMORY_LIMITS,
  MEMORY_WORKFLOW_TYPE,
  memoryCommandSignal,
  memoryQuery,
  memoryWorkflowId,
  type ChatMessage,
  type MemoryCommand,
  type MemoryInput,
  type ModelActivities,
  type ModelCallInput,
  type ModelCallOutput,
  type ModelToolSpec,
} from '../protocol/models';
import { modelCallFailure } from './model-errors';
import { clockLine, fromSdkToolCalls, toModelMessages } from './model-messages';
import { withHeartbeats } from './heartbeats';

export type { ModelActivities } from '../protocol/models';

/** The worker's model: an AI SDK language model, and how operators see it named. */
export interface WorkerModel {
  model: LanguageModel;
  /** `provider:model id` (or the module it came from): in metrics labels and logs, never a key. */
  name: string;
}

export interface ModelActivityOptions {
  /** The workflow task queue (the memory workflows run there). */
  taskQueue: string;
  /** The model; undefined: every call answers `notConfigured`. */
  model?: WorkerModel;
  /** How long reading the memory may take before the call fails (and is retried). Default 10 s. */
  memoryReadMs?: number;
  /** The human's time zone of an agent (the reminders' rule); default UTC. For `clockAt`. */
  zoneOf?: (agentKey: string) => Promise<string>;
}

/** The AI SDK's own warnings go to the console; they carry no secret, but no log line is ours to add. */
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

function sdkTools(specs: readonly ModelToolSpec[]): Record<string, Tool> {
  return Object.fromEntries(
    specs.map((spec) => [
      spec.name,
      tool({ description: spec.description, inputSchema: jsonSchema(spec.inputSchema as never) }),
    ]),
  );
}

async function remembered(client: Client, agentKey: string, withinMs: number): Promise<ChatMessage[]> {
  try {
    const view = await client.withDeadline(Date.now() + withinMs, () =>
      client.workflow.getHandle(memoryWorkflowId(agentKey)).query(memoryQuery),
    );
    return view.turns.flatMap((turn) => turn.messages);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return [];
    throw err;
  }
}

async function call(
  client: Client,
  options: ModelActivityOptions,
  model: WorkerModel,
  input: ModelCallInput,
): Promise<ModelCallOutput> {
  const ctx = Context.current();
  const memory = input.memory ? await remembered(client, input.agentKey, options.memoryReadMs ?? 10_000) : [];
  const clock =
    input.clockAt === undefined
      ? undefined
      : clockLine(input.clockAt, (await options.zoneOf?.(input.agentKey)) ?? 'UTC');
  const system = [input.system, clock].filter(Boolean).join('\n\n') || undefined;
  try {
    // Heartbeats while the model thinks: a cancel reaches the call at the next one.
    const result = await withHeartbeats(
      generateText({
        model: model.model,
        system,
        messages: toModelMessages([...memory, ...input.messages]),
        ...(input.tools.length > 0 ? { tools: sdkTools(input.tools) } : {}),
        maxOutputTokens: input.maxOutputTokens,
        temperature: input.temperature,
        maxRetries: 0,
        abortSignal: ctx.cancellationSignal,
      }),
    );
    return {
      status: 'answered',
      text: result.text,
      toolCalls: fromSdkToolCalls(result.toolCalls),
      finishReason: result.finishReason,
      usage: { inputTokens: result.usage.inputTokens ?? 0, outputTokens: result.usage.outputTokens ?? 0 },
      model: model.name,
    };
  } catch (err) {
    // A cancel (the turn was interrupted, the activity timed out) is the SDK's to report.
    if (ctx.cancellationSignal.aborted) throw err;
    throw modelCallFailure(err);
  }
}

/** The model activities over `client` (its namespace is the memory workflows'). */
export function createModelActivities(client: Client, options: ModelActivityOptions): ModelActivities {
  return {
    async amsflowModelName(): Promise<string | null> {
      return options.model?.name ?? null;
    },
    async amsflowModelCall(input: ModelCallInput): Promise<ModelCallOutput> {
      if (!options.model) return { status: 'notConfigured' };
      return call(client, options, options.model, input);
    },
    async amsflowMemoryWrite(agentKey: string, command: MemoryCommand): Promise<void> {
      const start: MemoryInput = { agentKey, limits: command.limits ?? DEFAULT_MEMORY_LIMITS };
      await client.workflow.signalWithStart(MEMORY_WORKFLOW_TYPE, {
        workflowId: memoryWorkflowId(agentKey),
        taskQueue: options.taskQueue,
        args: [start],
        signal: memoryCommandSignal,
        signalArgs: [command],
      });
    },
  };
}
