/**
 * A starting worker's promotion step (`AMSFLOW_PROMOTE`): once its workers poll, it makes its
 * build current when the policy says so. `first` (the default against a cluster) promotes only a
 * deployment's first build, so a fresh deployment starts work at once while every later build
 * waits for `amsflow deploy promote`; `always` (the default with the embedded dev server) promotes
 * each build as it starts; `never` leaves it all to the operator.
 *
 * The server learns of a build from its workers' first polls, a moment after they start, and
 * refuses to make it current before then (or before it polls every task queue the current build
 * polls): those refusals are retried until `timeoutMs`.
 */
import type { Client } from '@temporalio/client';
import { AmsflowError } from '../core/amsflow-error';
import { AmsflowErrorCodes } from '../core/error-codes';
import { describeDeployment, makeCurrent, versionName, type BuildRef } from '../protocol/deployments';
import type { PromotePolicy } from './config-deploys';
import type { Log } from './run-types';

/** The build could not be made current in time: the message says what the server answered. */
export class PromotionError extends AmsflowError {
  readonly code = AmsflowErrorCodes.promotion;
}

/** gRPC's FAILED_PRECONDITION and NOT_FOUND: the server does not know the build (or all its queues) yet. */
const NOT_YET = new Set([5, 9]);

export interface PromoteOptions {
  /** How long the server may take to know the build. Default 30 s. */
  timeoutMs?: number;
  /** Between two tries. Default 250 ms. */
  intervalMs?: number;
  identity?: string;
}

/** Whether `policy` asks to promote `build` now, given the deployment's current build. */
export function shouldPromote(policy: PromotePolicy, build: BuildRef, current: string | undefined): boolean {
  if (policy === 'never' || current === build.buildId) return false;
  return policy === 'always' || current === undefined;
}

/** Promotes `build` when `policy` says so; resolves to whether this call made it current. */
export async function promoteAtStart(
  client: Client,
  build: BuildRef,
  policy: PromotePolicy,
  log: Log,
  options: PromoteOptions = {},
): Promise<boolean> {
  if (policy === 'never') return false;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let lastRefusal = 'the server has not seen this build poll yet';
  for (;;) {
    const view = await describeDeployment(client, build.deploymentName);
    if (!shouldPromote(policy, build, view?.current)) {
      if (view?.current !== build.buildId)
        log(
          `amsflow: build ${build.buildId} of deployment ${build.deploymentName} runs; ${view?.current ?? 'none'} is current ` +
            `(new conversations start there): make this one current with amsflow deploy promote ${build.buildId}`,
        );
      return false;
    }
    try {
      await makeCurrent(client, build, options.identity ?? `amsflow-worker ${process.pid}`);
      log(`amsflow: build ${build.buildId} is now current in deployment ${build.deploymentName}`);
      return true;
    } catch (err) {
      if (!NOT_YET.has((err as { code?: number }).code ?? -1)) throw err;
      lastRefusal = (err as Error).message;
    }
    if (Date.now() > deadline)
      throw new PromotionError(
        `could not make build ${versionName(build)} current within ${Math.round((options.timeoutMs ?? 30_000) / 1000)} s ` +
          `(AMSFLOW_PROMOTE=${policy}): the server said: ${lastRefusal}. ` +
          'Check that this worker polls every task queue of the current build, or set AMSFLOW_PROMOTE=never and promote with amsflow deploy promote.',
      );
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
  }
}
