/**
 * The worker's deployment settings (docs/OPERATIONS.md, "Upgrading workflow code"): which build of
 * which Worker Deployment it is, whether it makes its build current when it starts, and whether it
 * exits once its build has drained.
 */
import { z } from 'zod';
import { BUILD_ID_PATTERN, DEPLOYMENT_NAME_PATTERN } from '../protocol/deployments';

/**
 * When a starting worker makes its build current: `first` only when the deployment has no current
 * build yet (its first rollout; later ones are `amsflow deploy promote`), `always` at every start,
 * `never` (the operator promotes every build).
 */
export type PromotePolicy = 'first' | 'always' | 'never';

export const DEPLOY_ENV = {
  /** The Worker Deployment; `off` for unversioned workers. Default: the task queue's name. */
  AMSFLOW_DEPLOYMENT: z
    .string()
    .trim()
    .regex(DEPLOYMENT_NAME_PATTERN, 'must be 1 to 200 characters without ".", ":" or spaces, or off')
    .optional(),
  /** The build id. Default: the digest of the workflow bundle. */
  AMSFLOW_BUILD_ID: z
    .string()
    .trim()
    .regex(BUILD_ID_PATTERN, 'must be 1 to 200 letters, digits, ".", "_", "+" or "-" (a git sha, a version)')
    .optional(),
  /** Temporal's Worker Controller for Kubernetes injects these two: the same as the two above. */
  TEMPORAL_DEPLOYMENT_NAME: z
    .string()
    .trim()
    .regex(DEPLOYMENT_NAME_PATTERN, 'must be 1 to 200 characters without ".", ":" or spaces')
    .optional(),
  TEMPORAL_WORKER_BUILD_ID: z
    .string()
    .trim()
    .regex(BUILD_ID_PATTERN, 'must be 1 to 200 letters, digits, ".", "_", "+" or "-"')
    .optional(),
  AMSFLOW_PROMOTE: z.enum(['first', 'always', 'never']).optional(),
  /** `1`: exit 0 once this build is drained (no longer current, nothing pinned to it runs). */
  AMSFLOW_EXIT_WHEN_DRAINED: z.enum(['0', '1', 'true', 'false']).default('0'),
};

export interface DeployConfig {
  /** False: unversioned workers (`AMSFLOW_DEPLOYMENT=off`). */
  versioned: boolean;
  /** `AMSFLOW_DEPLOYMENT` or `TEMPORAL_DEPLOYMENT_NAME`; undefined: the task queue's name. */
  deploymentName?: string;
  /** `AMSFLOW_BUILD_ID` or `TEMPORAL_WORKER_BUILD_ID`; undefined: the bundle's digest. */
  buildId?: string;
  /**
   * `AMSFLOW_PROMOTE`; default `never` under the Worker Controller (`TEMPORAL_DEPLOYMENT_NAME`),
   * `always` with the embedded dev server, `first` otherwise.
   */
  promote: PromotePolicy;
  /** `AMSFLOW_EXIT_WHEN_DRAINED=1`. */
  exitWhenDrained: boolean;
}

type DeployEnv = z.infer<z.ZodObject<typeof DEPLOY_ENV>>;

/**
 * The deployment settings from the parsed environment; two names for one setting that disagree
 * (`AMSFLOW_DEPLOYMENT` and the Worker Controller's `TEMPORAL_DEPLOYMENT_NAME`, `AMSFLOW_BUILD_ID`
 * and `TEMPORAL_WORKER_BUILD_ID`) are a problem. Under the Worker Controller (its deployment name
 * set) the controller makes builds current: the worker's own promotion defaults to `never`.
 */
export function deployConfigOf(
  e: DeployEnv,
  embeddedTemporal: boolean,
  problems: string[] = [],
): DeployConfig {
  const off = e.AMSFLOW_DEPLOYMENT === 'off';
  const both = (ours: string | undefined, theirs: string | undefined, names: [string, string]) => {
    if (ours !== undefined && theirs !== undefined && ours !== theirs)
      problems.push(`${names[0]} and ${names[1]} disagree (${ours} / ${theirs}): set one, or both alike`);
    return ours ?? theirs;
  };
  const deploymentName = both(e.AMSFLOW_DEPLOYMENT, e.TEMPORAL_DEPLOYMENT_NAME, [
    'AMSFLOW_DEPLOYMENT',
    'TEMPORAL_DEPLOYMENT_NAME',
  ]);
  const buildId = both(e.AMSFLOW_BUILD_ID, e.TEMPORAL_WORKER_BUILD_ID, [
    'AMSFLOW_BUILD_ID',
    'TEMPORAL_WORKER_BUILD_ID',
  ]);
  const controlled = e.TEMPORAL_DEPLOYMENT_NAME !== undefined;
  return {
    versioned: !off,
    deploymentName: off ? undefined : deploymentName,
    buildId,
    // The embedded server serves one developer's one worker: the build it runs is the one to use.
    promote: e.AMSFLOW_PROMOTE ?? (controlled ? 'never' : embeddedTemporal ? 'always' : 'first'),
    exitWhenDrained: e.AMSFLOW_EXIT_WHEN_DRAINED === '1' || e.AMSFLOW_EXIT_WHEN_DRAINED === 'true',
  };
}
