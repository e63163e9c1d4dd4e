/**
 * How the worker bundles a bot's workflow module. A bot imports amsflow's workflow API as
 * `amsflow/workflows`; inside this repository (a fresh clone, no build) that name has no
 * `dist/` to resolve to, so the bundler is pointed at the API next to this file: the TypeScript
 * sources when the worker runs from them, the compiled `dist/workflows` when it runs from an
 * installed package. Either way the bot is bundled against the same engine as the worker, and
 * a bot kept outside the project finds the Temporal workflow library the worker itself uses.
 */
import { dirname, resolve } from 'node:path';
import type { WorkerOptions } from '@temporalio/worker';

/** The module `amsflow/workflows` names for this worker. */
export const WORKFLOW_API_PATH = resolve(__dirname, '..', 'workflows', 'index');

/** The module `amsflow/engine-workflows` names for this worker: amsflow's own workflows. */
export const ENGINE_WORKFLOWS_PATH = resolve(__dirname, '..', 'workflows', 'engine-workflows');

/**
 * Workflow interceptor modules bundled with every amsflow workflow: the activation guard (see
 * workflows/engine/activation-guard.ts), then the argument check that drops a signal whose
 * argument does not decode before the SDK would fail the workflow task on it
 * (workflows/author/checked-handlers.ts). The guard comes first: an activation it refuses is
 * not looked at.
 */
export const WORKFLOW_INTERCEPTOR_MODULES: readonly string[] = [
  resolve(__dirname, '..', 'workflows', 'engine', 'activation-guard'),
  resolve(__dirname, '..', 'workflows', 'author', 'checked-handlers'),
];

/**
 * Tracing's workflow interceptor module (workflows/engine/tracing.ts), bundled last and only when
 * the worker traces: a bundle with it is different code, so a new default build id
 * (worker/build-id.ts) and another entry in any bundle cache (keyed on {@link
 * workflowInterceptorModules}).
 */
export const WORKFLOW_TRACING_MODULE = resolve(__dirname, '..', 'workflows', 'engine', 'tracing');

/** The workflow interceptor modules of a bundle: {@link WORKFLOW_INTERCEPTOR_MODULES}, then tracing's when on. */
export function workflowInterceptorModules(tracing = false): string[] {
  return [...WORKFLOW_INTERCEPTOR_MODULES, ...(tracing ? [WORKFLOW_TRACING_MODULE] : [])];
}

/**
 * Modules evaluated once per worker thread and shared by every workflow run, instead of once per
 * run (a reused V8 context gives each run its own copy of the modules it imports, evaluated when
 * the run starts: for a handler, on every message). Only modules without per-run state may be
 * here, and the SDK freezes what they export. The signal argument schemas
 * (protocol/message-schemas.ts, built on first use for that reason), and with them the zod they
 * import: about a millisecond and a half of every handler's first workflow task.
 */
export const WORKFLOW_PRELOAD_MODULES: readonly string[] = [
  resolve(__dirname, '..', 'protocol', 'message-schemas'),
];

/** The node_modules folder holding the `@temporalio/workflow` this worker runs. */
const OWN_MODULES = resolve(dirname(require.resolve('@temporalio/workflow/package.json')), '..', '..');

/**
 * Bundler options that resolve `amsflow/workflows` (and `amsflow/engine-workflows`) to this
 * worker's own, with the
 * shared modules preloaded ({@link WORKFLOW_PRELOAD_MODULES}).
 */
export function workflowBundlerOptions(): NonNullable<WorkerOptions['bundlerOptions']> {
  return {
    preloadModules: [...WORKFLOW_PRELOAD_MODULES],
    webpackConfigHook: (config) => ({
      ...config,
      resolve: {
        ...config.resolve,
        modules: [...(config.resolve?.modules ?? ['node_modules']), OWN_MODULES],
        alias: {
          ...(config.resolve?.alias as Record<string, string> | undefined),
          'amsflow/workflows$': WORKFLOW_API_PATH,
          'amsflow/engine-workflows$': ENGINE_WORKFLOWS_PATH,
        },
      },
    }),
  };
}
