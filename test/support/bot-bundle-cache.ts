/**
 * The workflow-bundle cache (bundle-cache.ts) for `bundleBot` (worker/bot-bundle.ts), which the
 * harness and every worker process the suites start (AMSFLOW_WORKFLOWS, npm start) call on the
 * same few bots: installed over the module objects of a jest test file (setup file
 * cache-bot-bundles.ts) and of the suites' node children (ts-node-cache.js). A bundle is kept
 * only after `bundleBot` returned it, so a refused module (no handler) is refused every time;
 * the key holds everything `bundleBot` reads besides the files: the bot file, the handlers it
 * requires, the failure converter, the interceptor and preloaded modules.
 */
import { tmpdir } from 'node:os';
import { resolve, sep } from 'node:path';
import { WORKFLOW_PRELOAD_MODULES, workflowInterceptorModules } from '../../worker/bundling';
import {
  cachedBundleCode,
  inputsProbe,
  storeBundleCode,
  withWebpackCache,
  type BundleInputs,
} from './bundle-cache';

type BotBundleModule = Pick<typeof import('../../worker/bot-bundle'), 'bundleBot'>;
type BundlingModule = Pick<typeof import('../../worker/bundling'), 'workflowBundlerOptions'>;

const WRAPPED = Symbol.for('amsflow.test.bundleCache');
/** The generated entry module's folder (made and removed by each bundleBot) and the folder holding it. */
const ENTRY_DIR = new RegExp(`^${escape(tmpdir())}(${escape(sep)}amsflow-entry-[^${escape(sep)}]+.*)?$`);

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What bundleBot's bundle depends on, without its throw-away entry module. */
function withoutEntry(inputs: BundleInputs): BundleInputs {
  return {
    files: inputs.files.filter((f) => !ENTRY_DIR.test(f)),
    missing: inputs.missing.filter((f) => !ENTRY_DIR.test(f)),
  };
}

/**
 * Wraps `botBundle.bundleBot` (with `bundling.workflowBundlerOptions`, to see webpack's inputs);
 * with `webpackCache`, the bundles it makes share webpack's cache (bundle-cache.ts; a jest worker
 * process makes many, a suite's child process one or two, for which storing it is a loss).
 */
export function cacheBotBundles(
  botBundle: BotBundleModule,
  bundling: BundlingModule,
  dir: string,
  { webpackCache = false }: { webpackCache?: boolean } = {},
): void {
  const marked = botBundle as { [WRAPPED]?: true };
  if (marked[WRAPPED]) return;
  marked[WRAPPED] = true;
  let found: ((inputs: BundleInputs) => void) | undefined;
  const options = bundling.workflowBundlerOptions;
  bundling.workflowBundlerOptions = () => {
    const own = options();
    const hook = own.webpackConfigHook ?? ((config) => config);
    const report = found;
    if (!report) return own;
    return {
      ...own,
      webpackConfigHook: (config) => {
        const hooked = hook(config);
        const probed = { ...hooked, plugins: [...(hooked.plugins ?? []), inputsProbe(report) as never] };
        return webpackCache ? withWebpackCache(probed) : probed;
      },
    };
  };
  const bundleBot = botBundle.bundleBot;
  botBundle.bundleBot = async (opts) => {
    const key = {
      bot: resolve(opts.workflowsPath),
      handlers: opts.handlers ?? null,
      failureConverterPath: opts.failureConverterPath ?? null,
      // Tracing's module is in the key: a traced bundle is other code.
      interceptors: workflowInterceptorModules(opts.tracing),
      preloaded: WORKFLOW_PRELOAD_MODULES,
    };
    const code = cachedBundleCode(dir, key);
    if (code !== undefined) return { code, sourceMap: 'deprecated: this is no longer in use\n' };
    let inputs: BundleInputs | undefined;
    // bundleBot asks for the bundler options before its first await: this call's probe only.
    found = (i) => (inputs = i);
    const making = bundleBot(opts);
    found = undefined;
    const made = await making;
    if (inputs) storeBundleCode(dir, key, made.code, withoutEntry(inputs));
    return made;
  };
}
