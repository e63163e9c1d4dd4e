/**
 * The model as worker configuration: `AMSFLOW_MODEL=<provider>:<model>` with the provider's key
 * variable, or `AMSFLOW_MODEL_MODULE`; every mistake named by its variable, never with the key's
 * value; the model made from the provider's package or imported from the module.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../worker/config';
import { loadWorkerModel } from '../../worker/model-config';
import { problemsOf } from './config-problems';

const KEY = 'sk-do-not-show-9f8e7d6c';

describe('the model in the worker configuration', () => {
  it('has none by default', () => {
    expect(loadConfig({}).model).toBeUndefined();
  });

  it('takes openai:<model> with OPENAI_API_KEY (and OPENAI_BASE_URL), and makes the chat model', async () => {
    const config = loadConfig({
      AMSFLOW_MODEL: 'openai:gpt-4o-mini',
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    });
    expect(config.model).toEqual({
      name: 'openai:gpt-4o-mini',
      provider: 'openai',
      modelId: 'gpt-4o-mini',
      apiKey: KEY,
      baseUrl: 'http://127.0.0.1:9/v1',
    });
    const { model, name } = await loadWorkerModel(config.model!);
    expect(name).toBe('openai:gpt-4o-mini');
    expect(model).toMatchObject({
      specificationVersion: 'v3',
      provider: 'openai.chat',
      modelId: 'gpt-4o-mini',
    });
  });

  it.each([
    [{ AMSFLOW_MODEL: 'openai:gpt-4o-mini' }, 'OPENAI_API_KEY: required by AMSFLOW_MODEL=openai:gpt-4o-mini'],
    [{ AMSFLOW_MODEL: 'gpt-4o-mini' }, 'AMSFLOW_MODEL: use <provider>:<model id>, like openai:gpt-4o-mini'],
    [{ AMSFLOW_MODEL: 'acme:m1', OPENAI_API_KEY: KEY }, 'AMSFLOW_MODEL: unknown provider "acme"'],
    [{ AMSFLOW_MODEL: 'anthropic:claude', ANTHROPIC_API_KEY: KEY }, 'needs the package @ai-sdk/anthropic'],
    [{ AMSFLOW_MODEL_MODULE: '/nowhere/model.ts' }, 'AMSFLOW_MODEL_MODULE: no module at /nowhere/model.ts'],
    [
      { AMSFLOW_MODEL: 'openai:x', AMSFLOW_MODEL_MODULE: 'm.ts', OPENAI_API_KEY: KEY },
      'set it or AMSFLOW_MODEL, not both',
    ],
  ])('names the problem with %j, never the key', (env, problem) => {
    const problems = problemsOf(env);
    expect(problems.join('\n')).toContain(problem);
    expect(problems.join('\n')).not.toContain(KEY);
  });

  describe('OPENAI_BASE_URL, held to the rule of AMS_BASE_URL: the key goes in clear to this machine only', () => {
    const openai = { AMSFLOW_MODEL: 'openai:gpt-4o-mini', OPENAI_API_KEY: KEY };

    it.each([
      ['http://llm.example.com/v1', 'http://llm.example.com/v1 is plain http to another host'],
      ['http://10.0.0.7:8000/v1', 'http://10.0.0.7:8000/v1 is plain http to another host'],
      ['ftp://llm.example.com/v1', 'uses ftp:, not https'],
      ['llm.example.com/v1', 'is not an absolute URL'],
    ])('refuses %s at start, naming the variable and never the key', (url, problem) => {
      const problems = problemsOf({ ...openai, OPENAI_BASE_URL: url }).join('\n');
      expect(problems).toContain(`OPENAI_BASE_URL: ${problem}`);
      expect(problems).not.toContain(KEY);
      expect(() => loadConfig({ ...openai, OPENAI_BASE_URL: url })).toThrow(
        expect.objectContaining({ name: 'ConfigError', code: 'AMSFLOW_CONFIG' }),
      );
    });

    it('refuses it with a model module too: the provider package reads the variable itself', () => {
      const env = { AMSFLOW_MODEL_MODULE: 'model.ts', OPENAI_BASE_URL: 'http://llm.example.com/v1' };
      expect(problemsOf(env).join('\n')).toContain(
        'OPENAI_BASE_URL: http://llm.example.com/v1 is plain http',
      );
    });

    it.each(['https://llm.example.com/v1', 'http://localhost:11434/v1', 'http://[::1]:8000/v1'])(
      'takes %s',
      (url) => {
        expect(loadConfig({ ...openai, OPENAI_BASE_URL: url }).model).toMatchObject({ baseUrl: url });
      },
    );
  });

  it('imports a module’s model, and refuses a module without one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'amsflow-model-'));
    writeFileSync(join(dir, 'good.js'), "exports.model = { specificationVersion: 'v3', doGenerate() {} };");
    writeFileSync(join(dir, 'bad.js'), 'exports.other = 1;');
    const good = loadConfig({ AMSFLOW_MODEL_MODULE: join(dir, 'good.js') }).model!;
    expect(good.name).toBe(`module ${join(dir, 'good.js')}`);
    expect((await loadWorkerModel(good)).model).toMatchObject({ specificationVersion: 'v3' });
    const bad = loadConfig({ AMSFLOW_MODEL_MODULE: join(dir, 'bad.js') }).model!;
    await expect(loadWorkerModel(bad)).rejects.toThrow(/exports no `model`/);
  });
});
