/**
 * `answerWithModel(message, options)`: a model turn in a handler. The model sees the agent's memory
 * and this turn's chat, and answers or asks for tools; each tool call is resolved
 * (`tool-calls.ts`: checked, approved in the chat when it must be, run as an activity or workflow
 * function) and the model is called again with the results, up to `maxSteps` calls. The answer
 * is kept in memory and sent (split at paragraph or sentence ends past 4096 characters). While
 * it works, the human is listened to as `doubleTexting` says. Every model call is an activity,
 * retried on the provider's 429/5xx with its own backoff; when it gives up, the human gets a
 * short apology instead of silence.
 */
import { log, workflowInfo } from '@temporalio/workflow';
import { checkTyping } from '../author/api-checks';
import { current } from '../author/conversation-state';
import { reply, sendText } from '../author/sending';
import type { InboundMessage } from '../../protocol/conversations';
import type { ChatToolResult, ModelCallInput, ModelToolCall } from '../../protocol/models';
import { splitAnswer } from './answer-text';
import { memoryWrites, modelName } from './model-activities';
import { turnSettings, type ModelTurnOptions, type TurnSettings } from './model-options';
import { usesReminders } from './reminder-tools';
import { Listener } from './listening';
import { think } from './thinking';
import { callIds, resolveToolCall, type CallContext, type Resolved } from './tool-calls';
import { notRunText } from './tool-texts';
import { Turn } from './turn';

/** What a model turn came to. */
export type ModelAnswer =
  /** The answer was sent (`text`; empty when the model had nothing to say). */
  | { ok: true; text: string }
  /** The worker has no model (`AMSFLOW_MODEL`): nothing was sent. */
  | { ok: false; reason: 'noModel' }
  /** Every attempt of a model call failed, or the model refused: the human got the apology. */
  | { ok: false; reason: 'failed'; failure: string }
  /** A cancel word or the operator's cancel: the human was told. */
  | { ok: false; reason: 'cancelled' };

/** What the human gets when a turn reached `maxSteps` without a final answer. */
export const TOO_MANY_STEPS_TEXT =
  'Sorry, that took more steps than I may take. Please ask again in smaller parts.';

/** A whole answer's parts, the first quoting the human's message it answers. */
async function sendAnswer(turn: Turn, text: string): Promise<void> {
  const [first, ...rest] = splitAnswer(text);
  if (first === undefined) return;
  // Settled from the service's receipts after a crash mid-send: neither lost nor sent twice.
  await reply(turn.latest, first, { reconcileAmbiguous: true });
  for (const part of rest) await sendText(part, { reconcileAmbiguous: true });
}

/** Keeps the turn in the agent's memory; a memory that cannot be written does not cost the answer. */
async function remember(turn: Turn, settings: TurnSettings, id: string): Promise<void> {
  if (settings.memory === false || turn.chat.length === 0) return;
  try {
    await memoryWrites.amsflowMemoryWrite(current().agentKey, {
      op: 'append',
      turn: { id, at: Date.now(), messages: turn.chat },
      limits: settings.memory,
    });
  } catch (err) {
    log.warn('model turn: its memory could not be written', {
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

/** Resolves the step's tool calls in order; after a stop, the rest are not run. */
async function resolveAll(ctx: CallContext, calls: readonly ModelToolCall[]) {
  const results: ChatToolResult[] = [];
  let stop: Resolved['stop'];
  for (const call of calls) {
    if (stop) {
      results.push({ id: call.id, name: call.name, output: notRunText('interrupted'), isError: true });
      continue;
    }
    const resolved = await resolveToolCall(ctx, call);
    results.push(resolved.result);
    stop = resolved.stop;
  }
  return { results, stop };
}

/** One turn: model calls and tool rounds until an answer (or a stop). */
async function runTurn(
  turn: Turn,
  settings: TurnSettings,
  ctx: CallContext,
  id: string,
): Promise<ModelAnswer> {
  const clock = usesReminders(settings.tools);
  let text = '';
  for (;;) {
    if (settings.doubleTexting === 'interrupt') for (const m of ctx.listener.take()) turn.addHuman(m);
    if (turn.steps >= settings.maxSteps) {
      // The last step asked for tools: its text was no answer.
      text = TOO_MANY_STEPS_TEXT;
      break;
    }
    const input: ModelCallInput = {
      agentKey: ctx.agentKey,
      ...(settings.system ? { system: settings.system } : {}),
      ...(clock ? { clockAt: Date.now() } : {}),
      messages: turn.chat,
      memory: settings.memory !== false,
      tools: settings.specs,
      ...(settings.maxOutputTokens ? { maxOutputTokens: settings.maxOutputTokens } : {}),
      ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
    };
    const thought = await think(turn, settings, ctx.listener, input);
    if (thought.kind === 'interrupted') continue;
    if (thought.kind === 'noModel') return { ok: false, reason: 'noModel' };
    if (thought.kind === 'cancelled') {
      await remember(turn, settings, id);
      return { ok: false, reason: 'cancelled' };
    }
    if (thought.kind === 'failed') {
      log.warn('model turn: the model call gave up', { failure: thought.type });
      // Tools that ran are kept, so that the next turn knows what was done.
      if (turn.steps > 0) await remember(turn, settings, id);
      await reply(turn.latest, settings.apology, { reconcileAmbiguous: true });
      return { ok: false, reason: 'failed', failure: thought.type };
    }
    turn.steps++;
    const { output } = thought;
    text = output.text;
    const calls = output.toolCalls.map(({ id: callId, name, input: args }) => ({
      id: callId,
      name,
      input: args,
    }));
    if (calls.length === 0) {
      turn.addStep(text, [], []);
      break;
    }
    const { results, stop } = await resolveAll(ctx, output.toolCalls);
    turn.addStep(text, calls, results);
    if (stop === 'cancelled') {
      await remember(turn, settings, id);
      return { ok: false, reason: 'cancelled' };
    }
  }
  await remember(turn, settings, id);
  await sendAnswer(turn, text);
  return { ok: true, text };
}

/**
 * Answers `message` with the worker's model (see the module comment and {@link ModelTurnOptions}).
 * Never throws for what the model, the provider or the human does: switch on the result. With no
 * model configured it sends nothing and resolves `{ ok: false, reason: 'noModel' }`.
 */
export async function answerWithModel(
  message: InboundMessage,
  options?: ModelTurnOptions,
): Promise<ModelAnswer> {
  checkTyping(message);
  const settings = turnSettings(options);
  const agentKey = current().agentKey;
  if ((await modelName.amsflowModelName()) === null) return { ok: false, reason: 'noModel' };
  const nextCallId = callIds();
  const run = workflowInfo().runId;
  // One wait for the human's next message for the whole call: every turn, every step, the answer.
  const listener = new Listener(settings.doubleTexting).start();
  let waiting: InboundMessage[] = [message];
  try {
    for (let n = 1; ; n++) {
      const turn = new Turn(waiting, settings.maxMessageChars);
      const ctx: CallContext = { turn, settings, listener, agentKey, nextCallId };
      const answer = await runTurn(turn, settings, ctx, `${run}-turn-${n}`);
      if (answer.ok || answer.reason === 'failed') {
        // What the human wrote after the last model call gets a turn of its own, now (`queue`:
        // whatever came during this turn). The last messages may come while the wait ends.
        waiting = listener.take();
        if (waiting.length === 0) await listener.stop();
        waiting = [...waiting, ...listener.take()];
      } else waiting = [];
      if (waiting.length === 0) return answer;
    }
  } finally {
    await listener.stop();
  }
}
