/**
 * `scriptedModel`: a language model for tests, built on the AI SDK's own mock
 * (`MockLanguageModelV3` from `ai/test`), so a bot's model turns run through the real model
 * activity, the real AI SDK and the real workflow, with no network. A test says what the model
 * answers (a text, a tool call, an HTTP error, a hang) step by step, or as a function of what it
 * was shown, and reads back what each call was shown (`calls`).
 *
 *   const model = scriptedModel([{ tool: 'weather', input: { city: 'Paris' } }, { text: 'Sunny.' }]);
 *   const bot = await createBotTestEnv({ workflows, model, activities: { weather } });
 */
import { APICallError } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

type CallOptions = Parameters<MockLanguageModelV3['doGenerate']>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;

/** Extras any step may have: a real-time wait before it answers, the tokens it reports. */
interface StepExtras {
  delayMs?: number;
  usage?: { input: number; output: number };
}

/** What the scripted model does on one call. */
export type ScriptStep = StepExtras &
  (
    | { text: string }
    /** One tool call (with `text` before it, if any). */
    | { tool: string; input?: unknown; text?: string }
    /** Several tool calls in one answer. */
    | { tools: { tool: string; input?: unknown }[]; text?: string }
    /** An HTTP error from the provider: 429, 500, 401... (`retryAfter` in seconds). */
    | { error: number; retryAfter?: number }
    /** No answer until the call is cancelled (its activity times out). */
    | { hang: true }
  );

/** One message the model was shown, as text. */
export interface ShownMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  text: string;
}

/** What one call was shown. */
export interface ScriptedCall {
  system?: string;
  messages: ShownMessage[];
  /** The tools it was offered, by name. */
  tools: string[];
  /** The human's messages in it, in order (memory first). */
  userTexts: string[];
  /** The tool results in it, in order. */
  toolResults: { name: string; output: unknown; isError: boolean }[];
}

export type Script = readonly ScriptStep[] | ((call: ScriptedCall, index: number) => ScriptStep);

function shown(options: CallOptions): ScriptedCall {
  const messages: ShownMessage[] = [];
  const toolResults: ScriptedCall['toolResults'] = [];
  for (const m of options.prompt) {
    if (m.role === 'system') {
      messages.push({ role: 'system', text: m.content });
      continue;
    }
    const parts = m.content.map((p) => {
      if (p.type === 'text') return p.text;
      if (p.type === 'tool-call') return `${p.toolName}(${JSON.stringify(p.input)})`;
      if (p.type === 'tool-result') {
        const isError = p.output.type === 'error-text' || p.output.type === 'error-json';
        const output = 'value' in p.output ? p.output.value : undefined;
        toolResults.push({ name: p.toolName, output, isError });
        return `${p.toolName} → ${JSON.stringify(output)}`;
      }
      return `[${p.type}]`;
    });
    messages.push({ role: m.role, text: parts.join('\n') });
  }
  return {
    system: messages.find((m) => m.role === 'system')?.text,
    messages: messages.filter((m) => m.role !== 'system'),
    tools: (options.tools ?? []).map((t) => t.name),
    userTexts: messages.filter((m) => m.role === 'user').map((m) => m.text),
    toolResults,
  };
}

async function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const timer = ms === Infinity ? undefined : setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      if (timer) clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    });
  });
}

function httpError(status: number, retryAfter?: number): APICallError {
  return new APICallError({
    message: `scripted HTTP ${status}`,
    url: 'https://scripted.model.invalid/v1',
    requestBodyValues: {},
    statusCode: status,
    responseHeaders: retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) },
    responseBody: JSON.stringify({ error: { code: `scripted_${status}` } }),
  });
}

function answer(step: ScriptStep, calls: number): GenerateResult {
  const content: GenerateResult['content'] = [];
  const text = 'text' in step ? step.text : undefined;
  if (text) content.push({ type: 'text', text });
  const tools = 'tools' in step ? step.tools : 'tool' in step ? [{ tool: step.tool, input: step.input }] : [];
  tools.forEach((t, i) =>
    content.push({
      type: 'tool-call',
      toolCallId: `call-${calls}-${i + 1}`,
      toolName: t.tool,
      input: JSON.stringify(t.input ?? {}),
    }),
  );
  const usage = step.usage ?? { input: 10, output: 5 };
  return {
    content,
    finishReason: { unified: tools.length ? 'tool-calls' : 'stop', raw: undefined },
    usage: {
      inputTokens: { total: usage.input, noCache: usage.input, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: usage.output, text: usage.output, reasoning: 0 },
    },
    warnings: [],
  };
}

/** A language model that follows a script (see the module comment). */
export class ScriptedModel extends MockLanguageModelV3 {
  /** What each call was shown, in order. */
  readonly calls: ScriptedCall[] = [];

  constructor(script: Script) {
    super({
      provider: 'scripted',
      modelId: 'scripted',
      doGenerate: async (options) => {
        const call = shown(options);
        const index = this.calls.push(call) - 1;
        const step = typeof script === 'function' ? script(call, index) : script[index];
        if (!step) throw httpError(400);
        if ('hang' in step) await wait(Infinity, options.abortSignal);
        if (step.delayMs) await wait(step.delayMs, options.abortSignal);
        if ('error' in step) throw httpError(step.error, step.retryAfter);
        return answer(step, index + 1);
      },
    });
  }

  /** Resolves once the model has been called `n` times (waits up to `timeoutMs`, real time). */
  async called(n: number, timeoutMs = 15_000): Promise<ScriptedCall> {
    const deadline = Date.now() + timeoutMs;
    while (this.calls.length < n) {
      if (Date.now() > deadline)
        throw new Error(`the model was called ${this.calls.length} times, not ${n}, within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.calls[n - 1];
  }
}

/** A scripted model: `steps` in order (a call past the last fails with HTTP 400), or a function of each call. */
export function scriptedModel(script: Script): ScriptedModel {
  return new ScriptedModel(script);
}
