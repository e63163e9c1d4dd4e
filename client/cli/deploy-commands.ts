/** `amsflow deploy status|promote|move|cancel`: a rollout from outside (client/deployments.ts). */
import { BUILD_ID_PATTERN, DEPLOYMENT_NAME_PATTERN, deploymentNameFor } from '../../protocol/deployments';
import {
  cancelOnBuild,
  DeploymentError,
  deploymentStatus,
  moveBuild,
  promoteBuild,
  type BuildStatusLine,
} from '../deployments';
import { jsonOption, taskQueue } from './options';
import { command, CommandFailure, type CommandInput, type GroupSpec, type PositionalSpec } from './spec';

const deploymentOption = {
  type: 'string',
  value: '<name>',
  description:
    "the Worker Deployment (unset: TEMPORAL_DEPLOYMENT_NAME, else the workers' task queue's name, amsflow)",
  env: 'AMSFLOW_DEPLOYMENT',
  check: (name: string) =>
    DEPLOYMENT_NAME_PATTERN.test(name) && name !== 'off'
      ? undefined
      : `--deployment: ${JSON.stringify(name)} is not a deployment name (no ".", ":" or spaces)`,
} as const;

const buildArgument: PositionalSpec = {
  name: 'build',
  what: 'the build id',
  description: 'a build id as `deploy status` lists it',
};

function buildProblem({ args }: CommandInput): string | undefined {
  return BUILD_ID_PATTERN.test(args[0])
    ? undefined
    : `${JSON.stringify(args[0])} is not a build id (letters, digits, ".", "_", "+" and "-")`;
}

function deploymentOf(values: { deployment?: string }, env: NodeJS.ProcessEnv): string {
  // The Worker Controller's name for it when set (and neither --deployment nor AMSFLOW_DEPLOYMENT is).
  return values.deployment ?? env.TEMPORAL_DEPLOYMENT_NAME ?? deploymentNameFor(taskQueue(env));
}

/** Runs `fn`; a {@link DeploymentError} (no such deployment or build, a refusal) fails the command. */
async function reported(fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof DeploymentError) throw new CommandFailure(err.message);
    throw err;
  }
}

/** One line per build for `deploy status` without `--json`. */
export function buildLine(b: BuildStatusLine): string {
  const role = b.current
    ? 'current'
    : b.rampPercentage !== undefined
      ? `ramping ${b.rampPercentage}%`
      : b.status;
  const r = b.running;
  const counts = `conversations ${r.conversations}, approvals ${r.approvals}, reminders ${r.reminders}, agents ${r.agents}`;
  const drain = b.drained
    ? 'drained: its workers may stop'
    : b.current || b.rampPercentage !== undefined || b.status === 'inactive'
      ? ''
      : `draining: ${r.pinned} pinned workflow(s) still run on it`;
  return [b.buildId, role, counts, drain].filter(Boolean).join('  ');
}

const status = command({
  name: 'status',
  summary: 'each build: current or not, what still runs on it, drained or not',
  description: [
    'Lists the builds of the deployment, newest first: whether new conversations start there',
    '(current, ramping), how many conversations, approvals, reminders and agent workflows last ran',
    'on it, and whether it has drained (not current, nothing pinned to it runs: its workers may',
    'stop). Agent and reminders workflows move to the current build at their next task and never',
    'keep a build from draining. Exit 1 when the deployment does not exist.',
  ].join('\n'),
  options: { deployment: deploymentOption, json: jsonOption },
  run: ({ values, env, temporal }) =>
    reported(async () => {
      const s = await deploymentStatus(await temporal(), deploymentOf(values, env));
      if (values.json) console.log(JSON.stringify(s, null, 2));
      else {
        console.log(`deployment ${s.deploymentName}: current build ${s.current ?? 'none'}`);
        for (const b of s.builds) console.log(`  ${buildLine(b)}`);
      }
      return 0;
    }),
});

const promote = command({
  name: 'promote',
  summary: 'make a build current (new conversations start there), or ramp a share onto it',
  description: [
    'New conversations and approvals start on the current build; those already running stay on the',
    'build that started them; agent and reminders workflows move at their next task. With --ramp',
    'only that share of new workflows (by workflow id) starts on the build, the rest on the current',
    'one; --ramp 0 ends the ramp. Exit 1 when the deployment has no such build (its workers never',
    'polled) or the server refuses (the build does not poll every task queue of the current one).',
  ].join('\n'),
  positionals: [buildArgument],
  options: {
    deployment: deploymentOption,
    ramp: {
      type: 'string',
      value: '<percent>',
      description: 'start this share (0 to 100) of new workflows on the build instead',
      check: (v: string) =>
        /^\d{1,3}(\.\d+)?$/.test(v) && Number(v) <= 100
          ? undefined
          : `--ramp: ${v} is not a percentage (0 to 100)`,
    },
  },
  check: buildProblem,
  run: ({ args, values, env, temporal }) =>
    reported(async () => {
      const build = { deploymentName: deploymentOf(values, env), buildId: args[0] };
      const ramp = values.ramp === undefined ? undefined : Number(values.ramp);
      await promoteBuild(await temporal(), build, { rampPercentage: ramp });
      console.log(
        ramp === undefined
          ? `build ${build.buildId} is current in deployment ${build.deploymentName}: new conversations start on it; see amsflow deploy status`
          : `build ${build.buildId} of deployment ${build.deploymentName} gets ${ramp}% of new workflows`,
      );
      return 0;
    }),
});

const move = command({
  name: 'move',
  summary: 'emergency: move the workflows pinned to a build onto another one',
  description: [
    'Pins every running workflow pinned to <build> to --to (default: the current build). Their next',
    'task replays their history on that build: only for code that replays it (`amsflow replay`',
    'passes), or they fail there. Prints the workflow ids moved.',
  ].join('\n'),
  positionals: [buildArgument],
  options: {
    deployment: deploymentOption,
    to: {
      type: 'string',
      value: '<build>',
      description: 'the build to move them to (default: the current one)',
    },
  },
  check: buildProblem,
  run: ({ args, values, env, temporal }) =>
    reported(async () => {
      const client = await temporal();
      const deploymentName = deploymentOf(values, env);
      const to = values.to ?? (await deploymentStatus(client, deploymentName)).current;
      if (!to) throw new DeploymentError(`deployment ${deploymentName} has no current build: give --to`);
      const moved = await moveBuild(
        client,
        { deploymentName, buildId: args[0] },
        { deploymentName, buildId: to },
      );
      for (const id of moved) console.log(id);
      console.log(`${moved.length} workflow(s) moved from build ${args[0]} to ${to}`);
      return 0;
    }),
});

const cancel = command({
  name: 'cancel',
  summary: 'emergency: cancel the conversations pinned to a build (the human is told)',
  description: [
    'Cancels every conversation pinned to <build>: its waits end and it tells the human what was',
    'cancelled (its build runs that). Workflows that are not conversations are listed with the',
    'reason and left running. Exit 1 when one could not be cancelled.',
  ].join('\n'),
  positionals: [buildArgument],
  options: {
    deployment: deploymentOption,
    reason: { type: 'string', value: '<text>', description: 'why (kept in each conversation state)' },
  },
  check: buildProblem,
  run: ({ args, values, env, temporal }) =>
    reported(async () => {
      const build = { deploymentName: deploymentOf(values, env), buildId: args[0] };
      const outcomes = await cancelOnBuild(
        await temporal(),
        build,
        values.reason ?? `build ${args[0]} withdrawn`,
      );
      for (const o of outcomes) console.log(`${o.workflowId}  ${o.outcome}`);
      const failed = outcomes.filter((o) => o.outcome !== 'cancelled').length;
      console.log(`${outcomes.length - failed} conversation(s) cancelled on build ${args[0]}`);
      return failed === 0 ? 0 : 1;
    }),
});

export const deployGroup: GroupSpec = {
  name: 'deploy',
  summary: 'the rollout of a new build: status, promote, and the emergency move or cancel',
  commands: [status, promote, move, cancel],
};
