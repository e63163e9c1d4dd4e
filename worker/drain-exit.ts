/**
 * `AMSFLOW_EXIT_WHEN_DRAINED=1`: a worker of an old build stops by itself once its build has been
 * replaced and nothing pinned to it runs (protocol/deployments.ts, `isDrained`). It checks every
 * `intervalMs` and stops after two drained checks in a row: a workflow's build reaches visibility
 * a moment after its task completes, so one empty count alone is not trusted. A failed check (the
 * server unreachable) changes nothing.
 */
import type { Client } from '@temporalio/client';
import {
  describeDeployment,
  isDrained,
  runningOnBuild,
  versionName,
  type BuildRef,
} from '../protocol/deployments';
import type { Log } from './run-types';

/** Whether `build` is drained now. */
export async function buildDrained(client: Client, build: BuildRef): Promise<boolean> {
  const view = await describeDeployment(client, build.deploymentName);
  const summary = view?.builds.find((b) => b.buildId === build.buildId);
  if (!summary || view?.current === build.buildId || view?.ramping?.buildId === build.buildId) return false;
  if (summary.status !== 'draining' && summary.status !== 'drained') return false;
  return isDrained(summary.status, await runningOnBuild(client, build));
}

export class DrainWatch {
  private timer?: NodeJS.Timeout;
  private drainedChecks = 0;
  private checking?: Promise<void>;

  constructor(
    private readonly client: Client,
    private readonly build: BuildRef,
    private readonly intervalMs: number,
    /** Called once, when the build has drained: the process drains its workers and exits 0. */
    private readonly onDrained: () => void,
    private readonly log: Log,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.checking ??= this.check().finally(() => (this.checking = undefined));
    }, this.intervalMs);
  }

  /** Stops checking; waits for a check in flight (it uses the client's connection). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.checking;
  }

  private async check(): Promise<void> {
    let drained: boolean;
    try {
      drained = await buildDrained(this.client, this.build);
    } catch {
      return;
    }
    this.drainedChecks = drained ? this.drainedChecks + 1 : 0;
    if (this.drainedChecks < 2 || !this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.log(
      `amsflow: build ${versionName(this.build)} is drained (not current, nothing pinned to it runs): stopping (AMSFLOW_EXIT_WHEN_DRAINED)`,
    );
    this.onDrained();
  }
}
