/**
 * Worker Deployments as amsflow uses them, in one place for a starting worker (promotion, exit
 * when drained) and the client (`amsflow deploy status|promote`): which workflow types follow the
 * current build, how a build is named to the server, what "drained" means, and the calls that read
 * and move a deployment's routing. The Temporal client is passed in (a type-only import: workflow
 * code may load this module, and never calls it).
 *
 * A build is a Worker Deployment Version: `<deployment>:<build id>`. Every workflow is pinned to
 * the build that started it; amsflow's long-lived ones (the agent, reminders) continue as new onto
 * the current build once another is current (workflows/author/build-moves.ts), woken by the
 * promotion so that they move at once.
 */
import type { Client } from '@temporalio/client';
import { APPROVAL_WORKFLOW_TYPE } from './agent';
import { wakeSignal } from './messages';

/** amsflow's own workflow types that move to the current build at continue-as-new (build-moves.ts). */
export const MOVING_WORKFLOW_TYPES = ['agentWorkflow', 'remindersWorkflow'] as const;

/** The deployment name rule of the server: no `.` or `:`, not starting with `__`. */
export const DEPLOYMENT_NAME_PATTERN = /^(?!__)[^.:\s]{1,200}$/;
/** Build ids amsflow accepts: a git sha, a semver, a digest; no `:` (the version separator). */
export const BUILD_ID_PATTERN = /^(?!__)[A-Za-z0-9][A-Za-z0-9._+-]{0,199}$/;

/** A deployment's name made from a task queue's (the default): `.` and `:` become `-`. */
export function deploymentNameFor(taskQueue: string): string {
  const name = taskQueue.replace(/[.:\s]/g, '-');
  return name.startsWith('__') ? `q${name}` : name;
}

/** One build of a deployment. */
export interface BuildRef {
  deploymentName: string;
  buildId: string;
}

/** The server's name of a build, as its search attribute `TemporalWorkerDeploymentVersion` holds it. */
export function versionName(build: BuildRef): string {
  return `${build.deploymentName}:${build.buildId}`;
}

/** Where a build stands in its deployment, from the server. */
export type BuildStatus = 'inactive' | 'current' | 'ramping' | 'draining' | 'drained' | 'unknown';

const STATUS_BY_NUMBER: Record<number, BuildStatus> = {
  1: 'inactive',
  2: 'current',
  3: 'ramping',
  4: 'draining',
  5: 'drained',
};

export interface BuildSummary {
  buildId: string;
  /** The server's word: `inactive` (never current), `current`, `ramping`, `draining`, `drained`. */
  status: BuildStatus;
  /** When a worker of this build first polled. */
  createdAt?: string;
}

export interface DeploymentView {
  deploymentName: string;
  /** The build new workflows start on; undefined before any promotion. */
  current?: string;
  /** The build a share of new workflows starts on, and that share (0 to 100). */
  ramping?: { buildId: string; percentage: number };
  /** Newest first. */
  builds: BuildSummary[];
  /**
   * Whether the last routing change (a promotion, a ramp) has reached every task queue of the
   * deployment: before, a pinned workflow's task is not yet told that another build is current.
   * True on a server that does not say.
   */
  routingPropagated: boolean;
}

/** The parts of the server's answer read here (its generated types are not a dependency). */
interface RawVersion {
  deploymentName?: string | null;
  buildId?: string | null;
}
interface RawDeployment {
  workerDeploymentInfo?: {
    routingConfig?: {
      currentDeploymentVersion?: RawVersion | null;
      rampingDeploymentVersion?: RawVersion | null;
      rampingVersionPercentage?: number | null;
    } | null;
    /** 1: in progress, 2: completed (absent on older servers). */
    routingConfigUpdateState?: number | null;
    versionSummaries?:
      | {
          deploymentVersion?: RawVersion | null;
          status?: number | null;
          createTime?: { seconds?: unknown } | null;
        }[]
      | null;
  } | null;
}

function isoOf(time: { seconds?: unknown } | null | undefined): string | undefined {
  const seconds = Number(time?.seconds ?? NaN);
  return Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000).toISOString() : undefined;
}

/** The server's description of a deployment, as amsflow reads it. */
export function deploymentViewOf(deploymentName: string, raw: RawDeployment): DeploymentView {
  const info = raw.workerDeploymentInfo;
  const routing = info?.routingConfig;
  const current = routing?.currentDeploymentVersion?.buildId || undefined;
  const rampingId = routing?.rampingDeploymentVersion?.buildId || undefined;
  return {
    deploymentName,
    current,
    ramping: rampingId
      ? { buildId: rampingId, percentage: routing?.rampingVersionPercentage ?? 0 }
      : undefined,
    builds: (info?.versionSummaries ?? []).flatMap((v) => {
      const buildId = v.deploymentVersion?.buildId;
      if (!buildId) return [];
      return [
        { buildId, status: STATUS_BY_NUMBER[v.status ?? 0] ?? 'unknown', createdAt: isoOf(v.createTime) },
      ];
    }),
    routingPropagated: info?.routingConfigUpdateState !== ROUTING_UPDATE_IN_PROGRESS,
  };
}

/** `RoutingConfigUpdateState.ROUTING_CONFIG_UPDATE_STATE_IN_PROGRESS`. */
const ROUTING_UPDATE_IN_PROGRESS = 1;

/** gRPC's NOT_FOUND: the deployment (or build) does not exist yet. */
export function isNotFound(err: unknown): boolean {
  return (err as { code?: number } | null)?.code === 5;
}

/** The deployment as the server sees it, or undefined when no versioned worker ever polled for it. */
export async function describeDeployment(
  client: Client,
  deploymentName: string,
): Promise<DeploymentView | undefined> {
  try {
    const raw = await client.workflowService.describeWorkerDeployment({
      namespace: client.options.namespace,
      deploymentName,
    });
    return deploymentViewOf(deploymentName, raw);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * Makes `build` current: new workflows start there, and amsflow's moving workflows still on an
 * earlier build are woken to continue as new onto it ({@link wakeMovers}).
 */
export async function makeCurrent(client: Client, build: BuildRef, identity: string): Promise<void> {
  await client.workflowService.setWorkerDeploymentCurrentVersion({
    namespace: client.options.namespace,
    deploymentName: build.deploymentName,
    buildId: build.buildId,
    identity,
  });
  await wakeMovers(client, build);
}

/**
 * Wakes (`amsflow.wake`) the running agent and reminders workflows that are not on `current`, so
 * that each sees at once that another build is current and continues as new onto it (an agent
 * would at its next poll's end, within minutes; reminders at their next reminder, days away, and
 * their build would not drain meanwhile). Those of another deployment look and stay. Returns how
 * many were woken; one that ended meanwhile is passed over.
 */
export async function wakeMovers(
  client: Client,
  current: BuildRef,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<number> {
  // A task of theirs is told another build is current only once the routing has reached their
  // task queue: woken sooner, they would look and stay.
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const view = await describeDeployment(client, current.deploymentName);
    if (!view || view.routingPropagated || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 200));
  }
  const types = MOVING_WORKFLOW_TYPES.map(quoted).join(', ');
  const query =
    `WorkflowType IN (${types}) AND ExecutionStatus = 'Running' AND ` +
    `TemporalWorkerDeploymentVersion != ${quoted(versionName(current))}`;
  let woken = 0;
  for await (const info of client.workflow.list({ query })) {
    const handle = client.workflow.getHandle(info.workflowId, info.runId);
    if (
      await handle.signal(wakeSignal).then(
        () => true,
        () => false,
      )
    )
      woken++;
  }
  return woken;
}

/**
 * Starts `percentage` of new workflows (by workflow id) on `build`, the rest on the current build;
 * a percentage of 0 with no build ends the ramp.
 */
export async function setRamping(
  client: Client,
  deploymentName: string,
  ramp: { buildId: string; percentage: number } | undefined,
  identity: string,
): Promise<void> {
  await client.workflowService.setWorkerDeploymentRampingVersion({
    namespace: client.options.namespace,
    deploymentName,
    buildId: ramp?.buildId ?? '',
    percentage: ramp?.percentage ?? 0,
    identity,
  });
}

/** What still runs on a build, by kind. `pinned` is what keeps it from being drained. */
export interface RunningOnBuild {
  conversations: number;
  approvals: number;
  reminders: number;
  agents: number;
  /** Running workflows pinned to the build (conversations, approvals, the bot's own workflows). */
  pinned: number;
}

const quoted = (value: string) => `'${value.replace(/'/g, "\\'")}'`;

/** The visibility queries behind {@link RunningOnBuild}, each over running workflows of `build`. */
export function runningQueries(build: BuildRef): Record<keyof RunningOnBuild, string> {
  const base = `TemporalWorkerDeploymentVersion = ${quoted(versionName(build))} AND ExecutionStatus = 'Running'`;
  const ours = [APPROVAL_WORKFLOW_TYPE, ...MOVING_WORKFLOW_TYPES].map(quoted).join(', ');
  return {
    conversations: `${base} AND WorkflowType NOT IN (${ours})`,
    approvals: `${base} AND WorkflowType = ${quoted(APPROVAL_WORKFLOW_TYPE)}`,
    reminders: `${base} AND WorkflowType = 'remindersWorkflow'`,
    agents: `${base} AND WorkflowType = 'agentWorkflow'`,
    pinned: `${base} AND TemporalWorkflowVersioningBehavior = 'Pinned'`,
  };
}

/** Counts what runs on `build` (visibility: a workflow's build is recorded when its task completes). */
export async function runningOnBuild(client: Client, build: BuildRef): Promise<RunningOnBuild> {
  const queries = Object.entries(runningQueries(build));
  const counts = await Promise.all(queries.map(([, query]) => client.workflow.count(query)));
  return Object.fromEntries(queries.map(([kind], i) => [kind, counts[i].count])) as unknown as RunningOnBuild;
}

/**
 * A build is drained when it has been current (or ramping) and is no longer, and nothing pinned
 * to it runs: its workers may stop. The agent and reminders workflows count until they have moved
 * (at their continue-as-new, which the promotion's wake brings about at once).
 */
export function isDrained(status: BuildStatus, running: Pick<RunningOnBuild, 'pinned'>): boolean {
  return (status === 'draining' || status === 'drained') && running.pinned === 0;
}

/** A running workflow pinned to a build. */
export interface PinnedRun {
  workflowId: string;
  runId: string;
  workflowType: string;
}

/** The running workflows pinned to `build`: what keeps it from draining. */
export async function pinnedOn(client: Client, build: BuildRef): Promise<PinnedRun[]> {
  const query = runningQueries(build).pinned;
  const found: PinnedRun[] = [];
  for await (const info of client.workflow.list({ query }))
    found.push({ workflowId: info.workflowId, runId: info.runId, workflowType: info.type });
  return found;
}

/**
 * Pins a running workflow to `to` (a versioning override): its next task replays its history on
 * that build's code.
 */
export async function pinTo(client: Client, run: PinnedRun, to: BuildRef, identity: string): Promise<void> {
  await client.workflowService.updateWorkflowExecutionOptions({
    namespace: client.options.namespace,
    workflowExecution: { workflowId: run.workflowId, runId: run.runId },
    workflowExecutionOptions: {
      versioningOverride: {
        pinned: { behavior: 1, version: { deploymentName: to.deploymentName, buildId: to.buildId } },
      },
    },
    updateMask: { paths: ['versioning_override'] },
    identity,
  });
}
