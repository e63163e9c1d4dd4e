/**
 * The deployment step of `runAmsflow`, once its workers poll: the build is made current when
 * `AMSFLOW_PROMOTE` says so (promotion.ts); with the embedded dev server, what earlier builds left
 * pinned moves to it; and with `AMSFLOW_EXIT_WHEN_DRAINED=1` a watch stops the run once the build
 * has drained (drain-exit.ts).
 */
import type { Client } from '@temporalio/client';
import { describeDeployment, pinnedOn, pinTo, type BuildRef } from '../protocol/deployments';
import type { Cleanups } from './cleanups';
import type { WorkerConfig } from './config';
import { DrainWatch } from './drain-exit';
import { promoteAtStart } from './promotion';
import type { Log } from './run-types';

/** Promotes `build` per the policy, and watches for its drain when asked; `stop` ends the run. */
export async function deployStep(
  config: WorkerConfig,
  client: Client,
  build: BuildRef,
  stop: () => void,
  log: Log,
  cleanups: Cleanups,
): Promise<void> {
  await promoteAtStart(client, build, config.deploy.promote, log);
  if (!config.temporalAddress) await adoptEarlierBuilds(client, build, log);
  if (!config.deploy.exitWhenDrained) return;
  const watch = new DrainWatch(client, build, config.observability.healthCheckMs ?? 15_000, stop, log);
  // Before the client's connection closes (cleanups run newest first).
  cleanups.push(() => watch.stop());
  watch.start();
}

/**
 * The embedded dev server serves this process alone (the data dir is held): what is pinned to an
 * earlier build has no worker left to run it. It moves to this build, where its history replays
 * on the new code as it would without versioning: edit the bot, start again, go on.
 */
async function adoptEarlierBuilds(client: Client, build: BuildRef, log: Log): Promise<void> {
  const view = await describeDeployment(client, build.deploymentName);
  for (const earlier of view?.builds ?? []) {
    if (earlier.buildId === build.buildId) continue;
    const pinned = await pinnedOn(client, { deploymentName: build.deploymentName, buildId: earlier.buildId });
    for (const run of pinned) await pinTo(client, run, build, 'amsflow start');
    if (pinned.length > 0)
      log(
        `amsflow: ${pinned.length} workflow(s) of the earlier build ${earlier.buildId} moved to this build`,
      );
  }
}
