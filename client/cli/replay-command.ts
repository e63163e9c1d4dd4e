/**
 * `amsflow replay --workflows <bot module>`: the replay check before a rollout
 * (worker/replay-check.ts, loaded on demand: it bundles the bot as the worker does).
 */
import { dataConverterFromEnv, FAILURE_CONVERTER_PATH } from '../../codec';
import { jsonOption, taskQueue } from './options';
import { command, CommandFailure } from './spec';

/** How a failed replay reads: the workflow, what it is, and why. */
function failureLine(o: {
  workflowId: string;
  workflowType?: string;
  build?: string;
  status?: string;
  error?: string;
  movesAtContinueAsNew: boolean;
}): string {
  const what = [o.workflowType, o.build && `build ${o.build.split(':').pop()}`, o.status].filter(Boolean);
  const moves = o.movesAtContinueAsNew
    ? 'pinned, moves to the new build at continue-as-new with its state: it fails only if moved by hand'
    : 'pinned: it fails only if moved to the new build';
  return `FAIL ${o.workflowId} (${what.join(', ')}; ${moves}): ${o.error}`;
}

/** Histories that cannot be read fail the command with the file and the reason. */
function refused<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw new CommandFailure(`amsflow replay: ${(err as Error).message}`);
  }
}

export const replayCommand = command({
  name: 'replay',
  summary: 'replay recent histories against a bot module: would the new code run them?',
  description: [
    "Bundles <bot module> with amsflow's own workflows, as the worker does, and replays against it",
    'the newest histories of each workflow type on the task queue (fetched from TEMPORAL_ADDRESS:',
    "amsflow's own types and every type among the latest executions), or the histories in --histories",
    "(files exported with `temporal workflow show --output json`, or folders of them; a history's",
    "workflow id is its file name without .json, or what the folder's workflow-ids.json maps it to).",
    'Prints each workflow that does not replay and why; exit 1 when one does not (with',
    '--allow-pinned, none counts: every workflow is pinned and finishes on its own build, the agent and',
    'reminders moving at continue-as-new), or when there was nothing to replay (unless --allow-empty).',
  ].join('\n'),
  options: {
    workflows: {
      type: 'string',
      value: '<bot module>',
      description: 'the new code: the bot module (as AMSFLOW_WORKFLOWS)',
      required: true,
    },
    histories: {
      type: 'string',
      value: '<file or folder>',
      description: 'replay these exported histories instead of fetching them',
      multiple: true,
    },
    'per-type': {
      type: 'string',
      value: '<n>',
      description: 'histories fetched per workflow type, newest first',
      default: '10',
      check: (v: string) =>
        /^[1-9]\d{0,3}$/.test(v) ? undefined : `--per-type: ${v} is not a count (1 to 9999)`,
    },
    'allow-pinned': {
      type: 'boolean',
      description:
        'exit 0 whatever fails: every workflow is pinned, so only a run moved by hand would meet the new code',
    },
    'allow-empty': { type: 'boolean', description: 'exit 0 when there is no history to replay' },
    json: jsonOption,
  },
  async run({ values, env, temporal }) {
    const started = Date.now();
    // Temporal first: an unreachable one fails the command before the slow loads below.
    const client = values.histories?.length ? undefined : await temporal();
    const { bundleBot } = await import('../../worker/bot-bundle');
    const check = await import('../../worker/replay-check');
    const dataConverter = dataConverterFromEnv(env);
    const histories = !client
      ? refused(() => check.readHistories(values.histories!))
      : await check.fetchHistories(client, {
          taskQueue: taskQueue(env),
          perType: Number(values['per-type']),
        });
    if (histories.length === 0 && !values['allow-empty'])
      throw new CommandFailure(
        `amsflow replay: nothing to replay (no history ${values.histories?.length ? 'in the files given' : `on task queue ${taskQueue(env)}`}); --allow-empty to pass anyway`,
      );
    // Bundled as the worker of this environment bundles it: with tracing's interceptors when it traces.
    const { tracingModeFromEnv } = await import('../../worker/observability/tracing-mode');
    const tracing = tracingModeFromEnv(env) === 'otlp';
    const workflowBundle = await bundleBot({
      workflowsPath: values.workflows!,
      tracing,
      handlers: [],
      failureConverterPath: dataConverter ? FAILURE_CONVERTER_PATH : undefined,
    }).catch((err: Error & { code?: string }) => {
      // A module that is missing or does not bundle: its message names the file.
      throw err.code === 'AMSFLOW_BOT_MODULE' ? new CommandFailure(`amsflow replay: ${err.message}`) : err;
    });
    const outcomes = await check.replayAll(workflowBundle, histories, dataConverter, tracing);
    const failed = outcomes.filter((o) => o.error !== undefined);
    // Every workflow is pinned (the agent and reminders move at continue-as-new, not by replay):
    // a failure matters only to a run moved to the new build by hand (`amsflow deploy move`).
    const counted = values['allow-pinned'] ? [] : failed;
    if (values.json) console.log(JSON.stringify(outcomes, null, 2));
    else for (const o of failed) console.log(failureLine(o));
    const types = new Set(outcomes.map((o) => o.workflowType ?? '?')).size;
    console.log(
      `amsflow replay: ${outcomes.length} histories of ${types} workflow types replayed against ${values.workflows} ` +
        `in ${((Date.now() - started) / 1000).toFixed(1)} s: ${failed.length} would fail`,
    );
    return counted.length === 0 ? 0 : 1;
  },
});
