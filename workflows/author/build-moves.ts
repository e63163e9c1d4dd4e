/**
 * How amsflow's long-lived workflows (the agent, reminders) follow a deploy, with no patch before
 * 1.0: like every workflow they are pinned to the build that started a run (the workers' default,
 * `worker/versioning.ts`), so a run never replays its history on other code; once another build
 * is current (`amsflow deploy promote`, or a start with the embedded server), a run continues as
 * new onto it at its next workflow task, carrying its state. A deploy changes their code the way it
 * changes a conversation's, without a replay and without `patched()`.
 */
import { workflowInfo, type ContinueAsNewOptions } from '@temporalio/workflow';

/** Whether a build other than this run's is current now: the run should continue as new onto it. */
export function newBuildCurrent(): boolean {
  return workflowInfo().targetWorkerDeploymentVersionChanged === true;
}

/**
 * What a continue-as-new needs to start the next run on the current build: its first task
 * auto-upgrades (then it is pinned there, as the workers' default). Only on a versioned worker:
 * an unversioned one (a plain `Worker.create` in a test) names no deployment, and the next run
 * stays where it is. (`version`: this run's, `workflowInfo().currentDeploymentVersion`.)
 */
export function onCurrentBuild(
  version: { deploymentName?: string; buildId?: string } | undefined,
): Pick<ContinueAsNewOptions, 'initialVersioningBehavior'> {
  return version?.deploymentName ? { initialVersioningBehavior: 'AUTO_UPGRADE' } : {};
}
