/**
 * The model activities without a server (MockActivityEnvironment) and with the AI SDK's mock
 * model: a call's prompt and answer, tool calls handed back unrun, the clock line, failures as
 * typed Temporal failures with facts only (status, code; never the provider's text), Retry-After,
 * a cancel, and a worker with no model.
 */
import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger } from '@temporalio/worker';
import { MockActivityEnvironment } from '@temporalio/testing';
import { APICallError } from 'ai';
import type { Client } from '@temporalio/client';
import { createModelActivities } from '../../activities/model-calls';
import {
  MAX_RETRY_AFTER_MS,
  modelCallFailure,
  providerErrorCode,
  retryAfterMs,
} from '../../activities/model-errors';
import { clockLine, fromSdkToolCalls, toModelMessages } from '../../activities/model-messages';
import type { ModelCallInput } from '../../protocol/models';
import { scriptedModel, type Script } from '../../testing/scripted-model';

const noClient = {} as Client;
const env = () => new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
const input: ModelCallInput = {
  agentKey: 'a',
  system: 'Be brief.',
  messages: [{ role: 'user', text: 'Weather in Paris?' }],
  memory: false,
  tools: [
    {
      name: 'weather',
      description: 'Weather',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
    },
  ],
};

function activities(script: Script, zone?: string) {
  const model = scriptedModel(script);
  const acts = createModelActivities(noClient, {
    taskQueue: 'q',
    model: { model, name: 'scripted:test' },
    ...(zone ? { zoneOf: async () => zone } : {}),
  });
  return { model, acts };
}

describe('amsflowModelCall', () => {
  it('answers with the text, the tool calls (not run) and the usage', async () => {
    const { model, acts } = activities([
      { tool: 'weather', input: { city: 'Paris' }, text: 'Let me see.', usage: { input: 30, output: 4 } },
    ]);
    const out = await env().run(acts.amsflowModelCall, input);
    expect(out).toEqual({
      status: 'answered',
      text: 'Let me see.',
      toolCalls: [{ id: 'call-1-1', name: 'weather', input: { city: 'Paris' } }],
      finishReason: 'tool-calls',
      usage: { inputTokens: 30, outputTokens: 4 },
      model: 'scripted:test',
    });
    expect(model.calls[0]).toMatchObject({
      system: 'Be brief.',
      tools: ['weather'],
      userTexts: ['Weather in Paris?'],
    });
  });

  it('ends the system prompt with the human’s clock when asked', async () => {
    const { model, acts } = activities([{ text: 'ok' }], 'Europe/Berlin');
    await env().run(acts.amsflowModelCall, { ...input, clockAt: Date.UTC(2026, 10, 27, 23, 30) });
    expect(model.calls[0].system).toBe(
      "Be brief.\n\nThe human's clock: Saturday 2026-11-28 00:30 (Europe/Berlin). Reminders are set in that time zone.",
    );
  });

  it('fails with typed failures: unavailable (retried, Retry-After) or refused (not retried)', async () => {
    const limited = activities([{ error: 429, retryAfter: 7 }]).acts;
    const err = (await env()
      .run(limited.amsflowModelCall, input)
      .catch((e: unknown) => e)) as ApplicationFailure;
    expect(err).toMatchObject({ type: 'ModelUnavailable', nonRetryable: false, nextRetryDelay: 7000 });
    expect(err.message).toBe('the model call failed: HTTP 429 (scripted_429)');
    const refused = activities([{ error: 401 }]).acts;
    await expect(env().run(refused.amsflowModelCall, input)).rejects.toMatchObject({
      type: 'ModelRefused',
      nonRetryable: true,
    });
  });

  it('gives up a call that is cancelled (the turn was interrupted)', async () => {
    const { acts } = activities([{ hang: true }]);
    const e = env();
    const call = e.run(acts.amsflowModelCall, input);
    setTimeout(() => e.cancel(), 50);
    await expect(call).rejects.toMatchObject({ name: expect.stringMatching(/Cancel|Abort/) });
  });

  it('answers notConfigured on a worker without a model', async () => {
    const acts = createModelActivities(noClient, { taskQueue: 'q' });
    expect(await env().run(acts.amsflowModelCall, input)).toEqual({ status: 'notConfigured' });
  });
});

describe('model failures', () => {
  const apiError = (
    statusCode: number | undefined,
    responseBody?: string,
    responseHeaders?: Record<string, string>,
  ) =>
    new APICallError({
      message: 'Incorrect API key provided: sk-abc…xyz. Your prompt was: secret plans',
      url: 'https://api.example/v1',
      requestBodyValues: { messages: ['secret plans'] },
      statusCode,
      responseBody,
      responseHeaders,
      ...(statusCode === undefined ? { isRetryable: true } : {}),
    });

  it('keeps facts only: never the provider’s text, the prompt or the key', () => {
    const failure = modelCallFailure(
      apiError(401, '{"error":{"code":"invalid_api_key","message":"sk-abc"}}'),
    );
    expect(failure.message).toBe('the model refused the call: HTTP 401 (invalid_api_key)');
    expect(JSON.stringify(failure.details)).not.toMatch(/secret|sk-/);
    expect(modelCallFailure(apiError(undefined)).message).toBe('the model call failed: no HTTP answer');
    expect(modelCallFailure(new TypeError('secret plans in a message')).message).toBe(
      'the model call failed (TypeError)',
    );
  });

  it('retries 408, 409, 429 and 5xx; refuses other 4xx', () => {
    const types = [400, 401, 403, 404, 408, 409, 422, 429, 500, 503].map(
      (s) => modelCallFailure(apiError(s)).type,
    );
    expect(types).toEqual([
      'ModelRefused',
      'ModelRefused',
      'ModelRefused',
      'ModelRefused',
      'ModelUnavailable',
      'ModelUnavailable',
      'ModelRefused',
      'ModelUnavailable',
      'ModelUnavailable',
      'ModelUnavailable',
    ]);
  });

  it('reads Retry-After in seconds, as a date, or retry-after-ms, capped', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(retryAfterMs({ 'Retry-After': '3' }, now)).toBe(3000);
    expect(retryAfterMs({ 'retry-after': new Date(now + 5000).toUTCString() }, now)).toBe(5000);
    expect(retryAfterMs({ 'retry-after-ms': '250', 'retry-after': '9' }, now)).toBe(250);
    expect(retryAfterMs({ 'retry-after': '3600' }, now)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryAfterMs({}, now)).toBeUndefined();
    expect(providerErrorCode('{"error":{"type":"rate limit with spaces"}}')).toBeUndefined();
    expect(providerErrorCode('<html>')).toBeUndefined();
  });
});

describe('model messages', () => {
  it('turns amsflow’s chat into the AI SDK’s messages', () => {
    expect(
      toModelMessages([
        { role: 'user', text: 'hi' },
        { role: 'assistant', text: '', toolCalls: [{ id: 'c', name: 'w', input: { x: 1 } }] },
        {
          role: 'tool',
          results: [
            { id: 'c', name: 'w', output: { ok: 1 } },
            { id: 'd', name: 'v', output: 'nope', isError: true },
          ],
        },
        { role: 'assistant', text: 'done' },
      ]),
    ).toEqual([
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'w', input: { x: 1 } }],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c', toolName: 'w', output: { type: 'json', value: { ok: 1 } } },
          {
            type: 'tool-result',
            toolCallId: 'd',
            toolName: 'v',
            output: { type: 'error-text', value: 'nope' },
          },
        ],
      },
      { role: 'assistant', content: 'done' },
    ]);
  });

  it('hands back a call whose input was not JSON with why', () => {
    expect(fromSdkToolCalls([{ toolCallId: 'c', toolName: 'w', input: '{oops', invalid: true }])).toEqual([
      { id: 'c', name: 'w', input: '{oops', problem: 'the input is not JSON' },
    ]);
    expect(clockLine(Date.UTC(2026, 0, 1, 9, 5), 'UTC')).toMatch(
      /^The human's clock: Thursday 2026-01-01 09:05 \(UTC\)/,
    );
  });
});
