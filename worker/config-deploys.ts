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
  AMSFLOW_PROMOTE: z.enum(['first', 'always', 'never']).optional(),
  /** `1`: exit 0 once this build is drained (no longer current, nothing pinned to it runs). */
  AMSFLOW_EXIT_WHEN_DRAINED: z.enum(['0', '1', 'true', 'false']).default('0'),
};

export interface DeployConfig {
  /** False: unversioned workers (`AMSFLOW_DEPLOYMENT=off`). */
  versioned: boolean;
  /** `AMSFLOW_DEPLOYMENT`; undefined: the task queue's name. */
  deploymentName?: string;
  /** `AMSFLOW_BUILD_ID`; undefined: the bundle's digest. */
  buildId?: string;
  /** `AMSFLOW_PROMOTE`; default `always` with the embedded dev server, `first` otherwise. */
  promote: PromotePolicy;
  /** `AMSFLOW_EXIT_WHEN_DRAINED=1`. */
  exitWhenDrained: boolean;
}

type DeployEnv = z.infer<z.ZodObject<typeof DEPLOY_ENV>>;

/** The deployment settings from the parsed environment. */
export function deployConfigOf(e: DeployEnv, embeddedTemporal: boolean): DeployConfig {
  const off = e.AMSFLOW_DEPLOYMENT === 'off';
  return {
    versioned: !off,
    deploymentName: off ? undefined : e.AMSFLOW_DEPLOYMENT,
    buildId: e.AMSFLOW_BUILD_ID,
    // The embedded server serves one developer's one worker: the build it runs is the one to use.
    promote: e.AMSFLOW_PROMOTE ?? (embeddedTemporal ? 'always' : 'first'),
    exitWhenDrained: e.AMSFLOW_EXIT_WHEN_DRAINED === '1' || e.AMSFLOW_EXIT_WHEN_DRAINED === 'true',
  };
}
