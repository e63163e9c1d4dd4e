/**
 * A configured provider in a real worker process (worker/main.ts) with the reference bot:
 * `AMSFLOW_MODEL=openai:<model>` with `OPENAI_API_KEY`, the real `@ai-sdk/openai` provider over
 * HTTP to a local stand-in (`OPENAI_BASE_URL`). The banner names the model; a message that is not
 * a command goes to the model, with the reminder tools and the human's clock; the provider's 429
 * is waited out (its Retry-After) and the call tried again; the answer reaches the human; the
 * tokens are counted in `/metrics`; and neither the key, the prompt nor the answer is in any line
 * the worker printed at debug level, nor the key in any history.
 */
import { randomUUID } from 'node:crypto';
import { freePort } from '../../worker/dev-server';
import { waitFor } from '../support/temporal';
import { OpenAiStandIn } from './openai-stand-in';
import { agentQueries, listRuns, runTexts, search } from './secret-search';
import { engineSuite } from './support';
import { sample } from '../support/metrics-sample';

jest.setTimeout(180_000);

describe('a provider configured on the worker', () => {
  const suite = engineSuite();
  let standIn: OpenAiStandIn | undefined;
  afterEach(async () => standIn?.close());

  it('answers through it, retries its 429, counts tokens, and logs no key, prompt or answer', async () => {
    const key = `sk-test-${randomUUID()}`;
    const [question, answer] = [`question-${randomUUID()}`, `answer-${randomUUID()}`];
    standIn = new OpenAiStandIn([
      { status: 429, retryAfter: 1 },
      { text: `Here: ${answer}`, usage: { prompt_tokens: 420, completion_tokens: 17 } },
    ]);
    const port = await freePort();
    const engine = await suite.start({
      windowMs: 1000,
      workflows: require.resolve('../../examples/reference/bot'),
      env: {
        AMSFLOW_MODEL: 'openai:gpt-stand-in',
        OPENAI_API_KEY: key,
        OPENAI_BASE_URL: await standIn.start(),
        AMSFLOW_METRICS_PORT: String(port),
        AMSFLOW_LOG_FORMAT: 'json',
        AMSFLOW_LOG_LEVEL: 'debug',
      },
    });
    const worker = await engine.startWorker();
    expect(worker.output.join('\n')).toContain('model         openai:gpt-stand-in');
    await engine.human(`What about ${question}?`);
    await waitFor('the answer', async () => (await engine.sentTexts()).includes(`Here: ${answer}`), {
      timeoutMs: 60_000,
    });
    expect(standIn.requests.map((r) => [r.path, r.authorization])).toEqual([
      ['/v1/chat/completions', `Bearer ${key}`],
      ['/v1/chat/completions', `Bearer ${key}`],
    ]);
    const { body } = standIn.requests[1];
    expect(body.model).toBe('gpt-stand-in');
    expect(JSON.stringify(body.messages)).toContain(question);
    expect(JSON.stringify(body.messages?.[0])).toMatch(
      /The human's clock: \w+day \d{4}-\d\d-\d\d \d\d:\d\d \(UTC\)/,
    );
    expect(body.tools?.map((t) => t.function.name)).toEqual([
      'setReminder',
      'listReminders',
      'cancelReminder',
    ]);

    const metrics = await waitFor('the token counts', async () => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return (
        sample(text, 'amsflow_model_tokens_total', { agent: engine.agentKey, kind: 'output' }) === 17 && text
      );
    });
    expect(sample(metrics, 'amsflow_model_tokens_total', { agent: engine.agentKey, kind: 'input' })).toBe(
      420,
    );
    expect(
      sample(metrics, 'amsflow_model_calls_total', { agent: engine.agentKey, outcome: 'unavailable' }),
    ).toBe(1);
    expect(
      sample(metrics, 'amsflow_model_calls_total', { agent: engine.agentKey, outcome: 'answered' }),
    ).toBe(1);

    const logs = worker.output.join('\n');
    expect(logs).toContain('"msg":"model: answered"');
    expect([logs.includes(key), logs.includes(question), logs.includes(answer)]).toEqual([
      false,
      false,
      false,
    ]);
    const runs = await runTexts(
      engine.client,
      await listRuns(engine.client, agentQueries(engine.agentKey, engine.taskQueue)),
    );
    expect(runs.length).toBeGreaterThan(1);
    expect(
      search(
        runs.map((r) => ({ where: r.workflowId, text: r.text })),
        key,
      ),
    ).toEqual([]);
  });
});
