/**
 * The model of model turns, as worker configuration: `AMSFLOW_MODEL=<provider>:<model id>` with
 * the provider's usual key variable (`openai:gpt-4o-mini` with `OPENAI_API_KEY`), or
 * `AMSFLOW_MODEL_MODULE=<file>` exporting `model` (any AI SDK language model: another provider, a
 * gateway, custom settings). Checked with the rest of the configuration (a missing key, an unknown
 * provider or a provider package that is not installed is a problem named with its variable, never
 * with the key's value); loaded when the workers are created. The key stays in this process: it is
 * registered for redaction and given to the provider, never to a workflow.
 */
import { isAbsolute, resolve } from 'node:path';
import type { LanguageModel } from 'ai';
import type { WorkerModel } from '../activities/model-calls';
import { providerUrlProblem } from './config-checks';

/** A provider amsflow knows by name: its AI SDK package, its factory, and its variables. */
interface Provider {
  package: string;
  create: string;
  key: string;
  baseUrl?: string;
  /** The provider's method for the model, when not the provider itself (`openai.chat(id)`). */
  method?: string;
}

/** Providers by the name `AMSFLOW_MODEL` uses. `@ai-sdk/openai` ships with amsflow; install the others. */
export const PROVIDERS: Readonly<Record<string, Provider>> = {
  // The Chat Completions API: what OpenAI-compatible servers (OPENAI_BASE_URL) speak too.
  openai: {
    package: '@ai-sdk/openai',
    create: 'createOpenAI',
    key: 'OPENAI_API_KEY',
    baseUrl: 'OPENAI_BASE_URL',
    method: 'chat',
  },
  anthropic: {
    package: '@ai-sdk/anthropic',
    create: 'createAnthropic',
    key: 'ANTHROPIC_API_KEY',
    baseUrl: 'ANTHROPIC_BASE_URL',
  },
  google: {
    package: '@ai-sdk/google',
    create: 'createGoogleGenerativeAI',
    key: 'GOOGLE_GENERATIVE_AI_API_KEY',
  },
  mistral: { package: '@ai-sdk/mistral', create: 'createMistral', key: 'MISTRAL_API_KEY' },
  groq: { package: '@ai-sdk/groq', create: 'createGroq', key: 'GROQ_API_KEY' },
  xai: { package: '@ai-sdk/xai', create: 'createXai', key: 'XAI_API_KEY' },
  deepseek: { package: '@ai-sdk/deepseek', create: 'createDeepSeek', key: 'DEEPSEEK_API_KEY' },
};

/** The model a worker serves, as configured (the key is here: never log this object). */
export type ModelConfig =
  | { name: string; provider: string; modelId: string; apiKey: string; baseUrl?: string }
  | { name: string; module: string };

const SPEC = /^([a-z0-9-]+):(\S+)$/;

function providerModel(spec: string, env: NodeJS.ProcessEnv, problems: string[]): ModelConfig | undefined {
  const m = SPEC.exec(spec.trim());
  if (!m) {
    problems.push('AMSFLOW_MODEL: use <provider>:<model id>, like openai:gpt-4o-mini');
    return undefined;
  }
  const [, provider, modelId] = m;
  const known = PROVIDERS[provider];
  if (!known) {
    problems.push(
      `AMSFLOW_MODEL: unknown provider "${provider}" (known: ${Object.keys(PROVIDERS).join(', ')}; any other: AMSFLOW_MODEL_MODULE)`,
    );
    return undefined;
  }
  try {
    require.resolve(known.package);
  } catch {
    problems.push(
      `AMSFLOW_MODEL: provider ${provider} needs the package ${known.package} (npm install ${known.package})`,
    );
    return undefined;
  }
  const apiKey = env[known.key]?.trim();
  if (!apiKey) {
    problems.push(`${known.key}: required by AMSFLOW_MODEL=${provider}:${modelId} (the provider's API key)`);
    return undefined;
  }
  if (baseUrlProblems(env, [known], problems)) return undefined;
  const baseUrl = known.baseUrl ? env[known.baseUrl]?.trim() || undefined : undefined;
  return { name: `${provider}:${modelId}`, provider, modelId, apiKey, ...(baseUrl ? { baseUrl } : {}) };
}

/**
 * Pushes a problem for each base URL variable of `providers` that is set and would send the key in
 * clear (plain http to another host) or is no URL; returns whether there was one. The provider
 * packages read these variables themselves too (`createOpenAI()` reads `OPENAI_BASE_URL`), so a
 * model module's provider is held to the same rule.
 */
function baseUrlProblems(env: NodeJS.ProcessEnv, providers: Provider[], problems: string[]): boolean {
  let found = false;
  for (const { baseUrl, key } of providers) {
    const value = baseUrl ? env[baseUrl]?.trim() : undefined;
    const problem = value ? providerUrlProblem(value, key) : undefined;
    if (problem) {
      problems.push(`${baseUrl}: ${problem}`);
      found = true;
    }
  }
  return found;
}

/** The model from the environment (undefined: none), problems pushed by variable name. */
export function modelConfigOf(env: NodeJS.ProcessEnv, problems: string[]): ModelConfig | undefined {
  const spec = env.AMSFLOW_MODEL?.trim();
  const module = env.AMSFLOW_MODEL_MODULE?.trim();
  if (spec && module) {
    problems.push('AMSFLOW_MODEL_MODULE: set it or AMSFLOW_MODEL, not both');
    return undefined;
  }
  if (module) {
    if (baseUrlProblems(env, Object.values(PROVIDERS), problems)) return undefined;
    const path = isAbsolute(module) ? module : resolve(module);
    try {
      return { name: `module ${module}`, module: require.resolve(path) };
    } catch {
      problems.push(`AMSFLOW_MODEL_MODULE: no module at ${module}`);
      return undefined;
    }
  }
  return spec ? providerModel(spec, env, problems) : undefined;
}

function isModel(value: unknown): value is LanguageModel {
  const m = value as { specificationVersion?: unknown; doGenerate?: unknown } | null;
  return typeof m?.doGenerate === 'function' && typeof m.specificationVersion === 'string';
}

/** The configured model, made (the provider's package loaded) or imported (a module's `model`). */
export async function loadWorkerModel(config: ModelConfig): Promise<WorkerModel> {
  if ('module' in config) {
    const loaded = (await import(config.module)) as { model?: unknown; default?: unknown };
    const model = loaded.model ?? loaded.default;
    if (!isModel(model))
      throw new Error(
        `AMSFLOW_MODEL_MODULE: ${config.module} exports no \`model\` (an AI SDK language model)`,
      );
    return { model, name: config.name };
  }
  const known = PROVIDERS[config.provider];
  const loaded = (await import(known.package)) as Record<string, unknown>;
  const create = loaded[known.create];
  if (typeof create !== 'function')
    throw new Error(
      `AMSFLOW_MODEL: ${known.package} exports no ${known.create}: is it an AI SDK provider of this version?`,
    );
  type Factory = ((id: string) => LanguageModel) & Record<string, unknown>;
  const provider = (create as (o: object) => Factory)({
    apiKey: config.apiKey,
    ...(config.baseUrl ? { baseURL: config.baseUrl } : {}),
  });
  const method = known.method ? (provider[known.method] as (id: string) => LanguageModel) : undefined;
  const model = method ? method.call(provider, config.modelId) : provider(config.modelId);
  return { model, name: config.name };
}
