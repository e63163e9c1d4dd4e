/**
 * `tool()`: what a bot offers a model. A tool has a description, a zod input schema and what runs
 * behind it: one of the bot's activities (by name: `AMSFLOW_ACTIVITIES`, or the harness's
 * `activities`) or a function in workflow code (amsflow's reminders are such tools). A tool that
 * `needsApproval` runs only after the human approved that call in the chat; the turn enforces it
 * (`tool-calls.ts`), whatever the model or anything it read says.
 *
 * `tool()` only records the definition: it is checked when a turn starts (`checkTools`), so a
 * mistake fails that handler once instead of the module's load failing every workflow.
 */
import type { Duration } from '@temporalio/common';
import {
  checkCount,
  checkDuration,
  checkFunction,
  checkOptions,
  checkString,
  invalidOption,
} from '../author/option-checks';
import type { SchemaLike } from '../author/prompt-rules';
import type { ModelToolSpec } from '../../protocol/models';
import { toJsonSchema, UnsupportedSchema } from './tool-schema';

/** What a tool's code is told of the call it serves. */
export interface ToolCall {
  /** Unique per call and stable across retries: an activity may use it to do its work once. */
  callId: string;
  agentKey: string;
}

/** What runs behind a tool: an activity's name (called with the input and the {@link ToolCall}), or a workflow function. */
export type ToolExecute<Input> = string | ((input: Input, call: ToolCall) => Promise<unknown>);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a tool set holds tools of any input (their functions take it)
export interface ToolDefinition<Input = any> {
  /** What it does, for the model (and the human, in an approval question). */
  description: string;
  /** Its input: a zod schema (zod 3 or 4). The model's arguments are checked against it before anything runs. */
  inputSchema: SchemaLike<Input>;
  execute: ToolExecute<Input>;
  /**
   * Ask the human first: the question shows the tool and its arguments; `true`, or a function of
   * the input giving the question's first line ("Send 50 EUR to Bob?"). Default false.
   */
  needsApproval?: boolean | ((input: Input) => string);
  /** How long the human has to answer. Default: the turn's `approvalTimeout` ('10 minutes'). */
  approvalTimeout?: Duration;
  /** One attempt of its activity may take this long. Default '1 minute'. */
  timeout?: Duration;
  /**
   * Attempts of its activity (Temporal retries a failure with backoff). Default 3; 1 with
   * `needsApproval` (at most once: a run cut by a crash is reported to the model as failed, not
   * run again).
   */
  attempts?: number;
}

/** The tools of a turn, by the name the model calls them. */
export type ToolSet = Record<string, ToolDefinition>;

/** Declares a tool (checked when a turn uses it). */
export function tool<Input>(definition: ToolDefinition<Input>): ToolDefinition<Input> {
  return definition;
}

const FN = 'answerWithModel';
const OPTIONS = [
  'description',
  'inputSchema',
  'execute',
  'needsApproval',
  'approvalTimeout',
  'timeout',
  'attempts',
];
/** What providers take as a tool name. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function checkTool(name: string, definition: ToolDefinition): ModelToolSpec {
  const where = `tools.${name}`;
  if (!TOOL_NAME.test(name))
    throw invalidOption(FN, 'tools', name, 'a tool name of 1 to 64 letters, digits, _ or -');
  checkOptions(FN, definition, OPTIONS, where);
  checkString(FN, `${where}.description`, definition.description, { max: 1024 });
  const schema = definition.inputSchema as unknown as { safeParse?: unknown } | undefined;
  if (typeof schema?.safeParse !== 'function')
    throw invalidOption(FN, `${where}.inputSchema`, schema, 'a zod schema');
  if (typeof definition.execute === 'string')
    checkString(FN, `${where}.execute`, definition.execute, { max: 200 });
  else checkFunction(FN, `${where}.execute`, definition.execute ?? null);
  if (
    typeof definition.needsApproval !== 'function' &&
    definition.needsApproval !== undefined &&
    typeof definition.needsApproval !== 'boolean'
  )
    throw invalidOption(
      FN,
      `${where}.needsApproval`,
      definition.needsApproval,
      'true, false or a function of the input',
    );
  checkDuration(FN, `${where}.approvalTimeout`, definition.approvalTimeout);
  checkDuration(FN, `${where}.timeout`, definition.timeout);
  checkCount(FN, `${where}.attempts`, definition.attempts, 1, 20);
  let inputSchema: Record<string, unknown>;
  try {
    inputSchema = toJsonSchema(schema, `${where}.inputSchema`);
  } catch (err) {
    if (err instanceof UnsupportedSchema)
      throw invalidOption(FN, err.path, err.kind, 'a type a model can be shown');
    throw err;
  }
  return { name, description: definition.description, inputSchema };
}

/** The tools checked, as the model is shown them; throws `InvalidOption` naming the first mistake. */
export function checkTools(tools: unknown): ModelToolSpec[] {
  if (tools === undefined) return [];
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools))
    throw invalidOption(FN, 'tools', tools, 'an object of tools by name');
  return Object.entries(tools as ToolSet).map(([name, definition]) => {
    if (typeof definition !== 'object' || definition === null)
      throw invalidOption(FN, `tools.${name}`, definition, 'a tool (made with tool())');
    return checkTool(name, definition);
  });
}
