/**
 * Marks a long-lived workflow of amsflow's own as auto-upgrading: on a versioned worker (a
 * build of a Worker Deployment, `worker/versioning.ts`) its next task after a promotion runs on
 * the new build instead of staying pinned to the one it started on. On an unversioned worker a
 * versioning behaviour is refused by the server ("versioning behavior cannot be specified
 * without deployment options being set with versioned mode"), so the behaviour is only declared
 * when the task that starts the run in this worker names a deployment: an unversioned worker's
 * tasks carry its build id and an empty deployment name.
 */
import { setWorkflowOptions, workflowInfo } from '@temporalio/workflow';

/** The options for a run: auto-upgrade on a versioned worker, nothing on an unversioned one. */
export function autoUpgradeOptions(version: { deploymentName?: string; buildId?: string } | undefined): {
  versioningBehavior?: 'AUTO_UPGRADE';
} {
  return version?.deploymentName ? { versioningBehavior: 'AUTO_UPGRADE' } : {};
}

/** Declares `fn` auto-upgrading wherever it runs on a versioned worker. */
export function autoUpgrade(fn: (...args: never[]) => Promise<unknown>): void {
  setWorkflowOptions(() => autoUpgradeOptions(workflowInfo().currentDeploymentVersion), fn);
}
