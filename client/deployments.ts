/**
 * A rollout from outside (`amsflow deploy status|promote|move|cancel`): each build of a Worker
 * Deployment with what still runs on it and whether it has drained; making a build current or
 * ramping a share of new workflows onto it; and the emergency exits for workflows pinned to a
 * build that must go: move them to another build, or cancel them (the human is told).
 */
import type { Client } from '@temporalio/client';
import {
  describeDeployment,
  isDrained,
  makeCurrent,
  pinnedOn,
  pinTo,
  runningOnBuild,
  setRamping,
  type BuildRef,
  type BuildSummary,
  type RunningOnBuild,
} from '../protocol/deployments';
import { cancelConversation, ConversationError } from './conversations';
import { mapLimited } from '../core/map-limited';
import { QUERY_CONCURRENCY } from './visibility-listing';

/** One build as `deploy status` shows it. */
export interface BuildStatusLine extends BuildSummary {
  current: boolean;
  /** The share of new workflows it gets while ramping (0 to 100). */
  rampPercentage?: number;
  running: RunningOnBuild;
  /** Not current nor ramping, and nothing pinned to it runs: its workers may stop. */
  drained: boolean;
}

export interface DeploymentStatus {
  deploymentName: string;
  current?: string;
  builds: BuildStatusLine[];
}

/** A deployment that does not exist, or a build it does not have: the message says which. */
export class DeploymentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeploymentError';
  }
}

async function described(client: Client, deploymentName: string) {
  const view = await describeDeployment(client, deploymentName);
  if (!view)
    throw new DeploymentError(
      `no deployment "${deploymentName}": no versioned worker has polled for it (is AMSFLOW_DEPLOYMENT or AMSFLOW_TASK_QUEUE the workers'?)`,
    );
  return view;
}

/** Every build of the deployment, newest first, with what runs on it. */
export async function deploymentStatus(client: Client, deploymentName: string): Promise<DeploymentStatus> {
  const view = await described(client, deploymentName);
  const builds = await mapLimited(view.builds, 2, async (summary) => {
    const running = await runningOnBuild(client, { deploymentName, buildId: summary.buildId });
    const ramping = view.ramping?.buildId === summary.buildId;
    return {
      ...summary,
      current: view.current === summary.buildId,
      rampPercentage: ramping ? view.ramping!.percentage : undefined,
      running,
      drained: !ramping && view.current !== summary.buildId && isDrained(summary.status, running),
    };
  });
  return { deploymentName, current: view.current, builds };
}

/** Checks that `buildId` is a build of the deployment (a worker of it has polled). */
async function knownBuild(client: Client, build: BuildRef): Promise<void> {
  const view = await described(client, build.deploymentName);
  if (view.builds.some((b) => b.buildId === build.buildId)) return;
  const known = view.builds.map((b) => b.buildId).join(', ') || 'none';
  throw new DeploymentError(
    `deployment "${build.deploymentName}" has no build "${build.buildId}" (start its workers first); its builds: ${known}`,
  );
}

/**
 * Makes `build` current, or with `rampPercentage` starts that share of new workflows on it. The
 * server refuses a build whose workers do not poll every task queue of the current one.
 */
export async function promoteBuild(
  client: Client,
  build: BuildRef,
  options: { rampPercentage?: number; identity?: string } = {},
): Promise<void> {
  await knownBuild(client, build);
  const identity = options.identity ?? 'amsflow deploy';
  try {
    if (options.rampPercentage === undefined) await makeCurrent(client, build, identity);
    else
      await setRamping(
        client,
        build.deploymentName,
        { buildId: build.buildId, percentage: options.rampPercentage },
        identity,
      );
  } catch (err) {
    if ((err as { code?: number }).code === 9) throw new DeploymentError((err as Error).message);
    throw err;
  }
}

/**
 * Emergency: pins every workflow pinned to `from` to `to` instead. Their next task replays their
 * history on `to`'s code: only for a change that replays (`amsflow replay` passes). Returns the ids moved.
 */
export async function moveBuild(client: Client, from: BuildRef, to: BuildRef): Promise<string[]> {
  await knownBuild(client, to);
  const pinned = await pinnedOn(client, from);
  await mapLimited(pinned, QUERY_CONCURRENCY, (run) => pinTo(client, run, to, 'amsflow deploy move'));
  return pinned.map((run) => run.workflowId);
}

/** What `cancelOnBuild` did with each workflow pinned to the build. */
export interface CancelOutcome {
  workflowId: string;
  /** `cancelled`: its waits ended and the human was told; otherwise why not. */
  outcome: string;
}

/**
 * Emergency: cancels every conversation pinned to `build` (its waits end and the human is told
 * what was cancelled, by the build's own workers). Workflows that are not conversations are left
 * as they are, with the reason.
 */
export async function cancelOnBuild(
  client: Client,
  build: BuildRef,
  reason: string,
): Promise<CancelOutcome[]> {
  const pinned = await pinnedOn(client, build);
  return mapLimited(pinned, QUERY_CONCURRENCY, async ({ workflowId }) => {
    try {
      await cancelConversation(client, workflowId, reason);
      return { workflowId, outcome: 'cancelled' };
    } catch (err) {
      if (err instanceof ConversationError) return { workflowId, outcome: err.message };
      throw err;
    }
  });
}
