/**
 * Polls of ended worker processes, given up at start. A worker killed mid-poll leaves its poll
 * activity attempt open at Temporal until the attempt's heartbeat timeout (5 s), and its agent
 * polls again only then; but a worker started on the same machine can see, from the poll tickets
 * (activities/poll-tickets.ts), that the attempt's process has ended, and so that its poll is
 * closed at the service. {@link EndedPolls} notes them as the process starts, and keeps those of
 * its own cluster's namespace once it knows its id (a machine's workers may serve several
 * clusters: another's task tokens are not sent to this one). As soon as Temporal
 * is reachable (before the workers run) it resets those workflows' sticky queue, the dead
 * worker's: the give-up's workflow task, or a signal's, would otherwise wait there for the sticky
 * schedule-to-start timeout (3 s) before any live worker may take it. Once the close grace has
 * passed since they were first seen ended (the dead process's connection close on its way), it
 * fails each attempt with `PollWorkerEnded`, and the agent workflow polls again at once, from
 * this worker or another. An attempt Temporal no longer knows (timed out, completed) is answered
 * NOT_FOUND and skipped.
 */
import type { NativeConnection } from '@temporalio/worker';
import type { EndedAttempt, PollTickets } from '../activities/poll-tickets';
import { ActivityFailureTypes } from '../protocol/failures';

/** Attempts recorded longer ago than this are over at Temporal (the poll activity's start-to-close bound). */
const MAX_AGE_MS = 10 * 60_000;
const BATCH = 50;

/** The poll attempts of ended processes, as seen when this process started. */
export class EndedPolls {
  private attempts: EndedAttempt[];

  constructor(tickets: PollTickets, now = Date.now()) {
    this.attempts = tickets.endedAttempts(MAX_AGE_MS, now);
  }

  /**
   * Keeps those of the namespace whose id is `namespaceId` (this worker's: {@link namespaceIdOf}),
   * and none when it is unknown: an attempt of another cluster is not this one's to give up, and
   * its heartbeat timeout ends it there.
   */
  keepNamespace(namespaceId: string | undefined): void {
    this.attempts = this.attempts.filter((a) => namespaceId !== undefined && a.namespaceId === namespaceId);
  }

  get size(): number {
    return this.attempts.length;
  }

  /**
   * Resets the sticky queue of each attempt's workflow run (the dead worker's): a workflow task
   * scheduled from now on (the give-up's, a signal's) goes to the task queue that live workers
   * poll, instead of waiting there for the sticky schedule-to-start timeout. A task already
   * scheduled there stays until then. Best effort: a run that is over, or a server unreachable,
   * is skipped.
   */
  async resetSticky(connection: NativeConnection): Promise<void> {
    const runs = this.attempts.filter((a) => a.workflowId !== undefined);
    for (let i = 0; i < runs.length; i += BATCH) {
      await Promise.all(
        runs
          .slice(i, i + BATCH)
          .map(({ namespace, workflowId, runId }) =>
            connection.workflowService
              .resetStickyTaskQueue({ namespace, execution: { workflowId, runId } })
              .catch(() => undefined),
          ),
      );
    }
  }

  /**
   * Gives them up once `closeGraceMs` has passed since each was first seen ended (here or by
   * another process of this machine); resolves to how many Temporal took.
   */
  async giveUp(connection: NativeConnection, closeGraceMs: number): Promise<number> {
    if (this.attempts.length === 0) return 0;
    const lastSeen = Math.max(...this.attempts.map((a) => a.endedSeenAt));
    const wait = lastSeen + closeGraceMs - Date.now();
    if (wait > 0) await new Promise<void>((r) => setTimeout(r, wait));
    let taken = 0;
    // A few at a time: a worker of many agents leaves one per agent.
    for (let i = 0; i < this.attempts.length; i += BATCH) {
      const batch = this.attempts.slice(i, i + BATCH);
      const answers = await Promise.all(batch.map((a) => giveUp(connection, a)));
      taken += answers.filter(Boolean).length;
    }
    return taken;
  }
}

/** Fails one attempt; false when Temporal did not take it. */
async function giveUp(connection: NativeConnection, attempt: EndedAttempt): Promise<boolean> {
  try {
    await connection.workflowService.respondActivityTaskFailed({
      namespace: attempt.namespace,
      taskToken: Buffer.from(attempt.taskToken, 'base64'),
      failure: {
        message: `the worker process running this poll (${attempt.ticket}) ended; a worker on its machine saw it`,
        applicationFailureInfo: { type: ActivityFailureTypes.pollWorkerEnded, nonRetryable: true },
      },
    });
    return true;
  } catch {
    // NOT_FOUND (over already) or unreachable: the heartbeat timeout gives it up as before.
    return false;
  }
}

/** The id of `namespace` at the server `connection` reaches; undefined when it does not say. */
export async function namespaceIdOf(
  connection: NativeConnection,
  namespace: string,
): Promise<string | undefined> {
  try {
    const { namespaceInfo } = await connection.workflowService.describeNamespace({ namespace });
    return namespaceInfo?.id || undefined;
  } catch {
    return undefined;
  }
}
