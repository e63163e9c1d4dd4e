/**
 * The build a worker process is: its Worker Deployment (`AMSFLOW_DEPLOYMENT`, default the task
 * queue's name, `amsflow`) and build id (`AMSFLOW_BUILD_ID`, default the digest of its workflow
 * bundle). Every worker of the process polls as that build. Every workflow is pinned: the bot
 * author's code (handlers, approvals, the bot's own workflows) finishes on the build that started
 * it; amsflow's agent and reminders workflows continue as new onto the current build once another
 * is current (workflows/author/build-moves.ts; protocol/deployments.ts lists them).
 */
import type { WorkerDeploymentOptions, WorkerOptions } from '@temporalio/worker';
import { deploymentNameFor, type BuildRef } from '../protocol/deployments';
import { bundleDigest } from './build-id';

/** The build from what was given, the task queue and the bundle. */
export function resolveBuild(
  given: Partial<BuildRef>,
  taskQueue: string,
  bundle: NonNullable<WorkerOptions['workflowBundle']>,
): BuildRef {
  return {
    deploymentName: given.deploymentName ?? deploymentNameFor(taskQueue),
    buildId: given.buildId ?? bundleDigest(bundle),
  };
}

/** What every worker of a build is created with. */
export function deploymentOptions(build: BuildRef): WorkerDeploymentOptions {
  return {
    version: { deploymentName: build.deploymentName, buildId: build.buildId },
    useWorkerVersioning: true,
    defaultVersioningBehavior: 'PINNED',
  };
}
