/**
 * What becomes of one tool call the model asked for. In this order, and nothing runs before its
 * step allows it: the tool must exist; its arguments must fit its zod schema; an identical call
 * already decided in this turn gets that decision again (never a second approval or run); a tool
 * that needs approval is asked in the chat, showing the tool and its arguments as they will run,
 * and runs only on `approved` by a decision bound to exactly this call (its tool and arguments:
 * the approval's subject) and made by the human's own message (the approval workflow proves the
 * agent routed it); this is workflow code: no text the model or the human writes can stand in
 * for that decision. Then it runs, as the bot's activity or as its workflow function. Whatever
 * happens, the model gets a result for the call.
 */
import { ActivityFailure, ApplicationFailure, isCancellation, workflowInfo } from '@temporalio/workflow';
import { askApproval } from '../approvals/ask-approval';
import type { ChatToolResult, ModelToolCall } from '../../protocol/models';
import type { Listener } from './listening';
import { toolActivity } from './model-activities';
import type { TurnSettings } from './model-options';
import type { ToolDefinition } from './tool';
import { approvalQuestion, invalidArguments, notRunText } from './tool-texts';
import { keptOutput, stableJson, type Turn } from './turn';

/** A call's result, and whether the turn must stop listening to the model (interrupted, cancelled). */
export interface Resolved {
  result: ChatToolResult;
  stop?: 'interrupted' | 'cancelled';
}

/** What the calls of one turn share: the agent, and a counter for call ids. */
export interface CallContext {
  turn: Turn;
  settings: TurnSettings;
  /** The turn's listener: the human heard while a call waits or runs. */
  listener: Listener;
  agentKey: string;
  /** A new call id: unique per agent, the same on every replay. */
  nextCallId(): string;
}

const error = (call: ModelToolCall, output: unknown): ChatToolResult => ({
  id: call.id,
  name: call.name,
  output,
  isError: true,
});

/** The failure of a tool's run, as the model is told it (its type and message). */
function failureText(err: unknown): string {
  const cause = err instanceof ActivityFailure ? (err.cause ?? err) : err;
  const type = cause instanceof ApplicationFailure && cause.type ? `${cause.type}: ` : '';
  return `The tool failed: ${type}${cause instanceof Error ? cause.message : String(cause)}`;
}

/**
 * Runs the tool: an activity while the human is listened to (it is never interrupted), a workflow
 * function with the listener aside (it may wait for the human itself: one wait at a time).
 */
async function run(ctx: CallContext, definition: ToolDefinition, input: unknown, callId: string) {
  const call = { callId, agentKey: ctx.agentKey };
  const { execute } = definition;
  if (typeof execute !== 'string') return ctx.listener.aside(() => execute(input, call));
  const got = await ctx.listener.during(toolActivity(definition)(input, call), 'finish');
  return got.kind === 'done' ? got.value : undefined; // `finish` ends done, or with the failure thrown
}

/** Runs the approved (or unguarded) call; a running tool is never interrupted. */
async function runNow(
  ctx: CallContext,
  call: ModelToolCall,
  definition: ToolDefinition,
  input: unknown,
  callId: string,
): Promise<Resolved> {
  let outcome: Pick<ChatToolResult, 'output' | 'isError'>;
  let stop: Resolved['stop'];
  try {
    outcome = { output: keptOutput(await run(ctx, definition, input, callId)) };
    // Cancelled while it ran: it finished all the same, and its result is kept.
    if (ctx.listener.wasCancelled) stop = 'cancelled';
  } catch (err) {
    // A bug in a workflow tool (not an ApplicationFailure) fails the workflow task, visibly.
    if (isCancellation(err) || (!(err instanceof ActivityFailure) && !(err instanceof ApplicationFailure)))
      throw err;
    outcome = { output: failureText(err), isError: true };
  }
  ctx.turn.decide(call.name, input, outcome);
  return { result: { id: call.id, name: call.name, ...outcome }, ...(stop ? { stop } : {}) };
}

/** Asks the human to approve the call; resolves to the result when it is not to run. */
async function approve(
  ctx: CallContext,
  call: ModelToolCall,
  definition: ToolDefinition,
  input: unknown,
  callId: string,
): Promise<Resolved | undefined> {
  const timeout = definition.approvalTimeout ?? ctx.settings.approvalTimeoutMs;
  const question = approvalQuestion(call.name, definition, input);
  if (question === undefined) {
    const outcome = { output: notRunText('tooLong'), isError: true };
    ctx.turn.decide(call.name, input, outcome);
    return { result: { id: call.id, name: call.name, ...outcome } };
  }
  // The human wrote again before it was asked: the model hears that first.
  if (ctx.settings.doubleTexting === 'interrupt' && ctx.listener.holding)
    return { result: error(call, notRunText('interrupted')), stop: 'interrupted' };
  // The decision is for this call only: the same tool with the same arguments.
  const subject = `tool ${call.name} ${stableJson(input)}`;
  const pending = await askApproval({ id: `tool-${callId}`, question, timeout, subject });
  const got = await ctx.listener.during(pending.decision, 'decide');
  let decision = got.kind === 'done' ? got.value : undefined;
  if (got.kind !== 'done') {
    // The human wrote again (or cancelled) before answering: asked again if the model still wants
    // it. An answer that came in the same instant stands: the cancel then finds it decided.
    const why = got.kind === 'interrupted' ? 'the human wrote again' : 'the conversation was cancelled';
    decision = await pending.cancel(why);
    if (decision.decision !== 'approved')
      return { result: error(call, notRunText('interrupted')), stop: got.kind };
  }
  if (decision!.decision === 'approved' && decision!.subject === subject) return undefined;
  // An approval for anything else than this call (its subject differs) approves nothing here.
  const kind = decision!.decision === 'approved' ? 'rejected' : decision!.decision;
  const outcome = { output: notRunText(kind, timeout), isError: true };
  ctx.turn.decide(call.name, input, outcome);
  return { result: { id: call.id, name: call.name, ...outcome } };
}

/** Resolves one tool call (see the module comment). */
export async function resolveToolCall(ctx: CallContext, call: ModelToolCall): Promise<Resolved> {
  const definition = ctx.settings.tools[call.name];
  if (!definition) {
    const known = Object.keys(ctx.settings.tools).join(', ') || 'none';
    return { result: error(call, `There is no tool "${call.name}" (tools: ${known}). Nothing ran.`) };
  }
  if (call.problem) return { result: error(call, `The arguments were not JSON. Nothing ran.`) };
  const parsed = definition.inputSchema.safeParse(call.input);
  if (!parsed.success) return { result: error(call, invalidArguments(parsed.error.issues)) };
  const input: unknown = parsed.data;
  const earlier = ctx.turn.decided(call.name, input);
  if (earlier) return { result: { id: call.id, name: call.name, ...earlier } };
  const callId = ctx.nextCallId();
  if (definition.needsApproval) {
    const refused = await approve(ctx, call, definition, input, callId);
    if (refused) return refused;
  }
  return runNow(ctx, call, definition, input, callId);
}

/** Call ids for one handler run: `<run id>-<n>`, unique per agent and the same on every replay. */
export function callIds(): () => string {
  let n = 0;
  const run = workflowInfo().runId;
  return () => `${run}-${++n}`;
}
