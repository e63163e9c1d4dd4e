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
