/**
 * Polls of ended worker processes, given up at start. A worker killed mid-poll leaves its poll
 * activity attempt open at Temporal until the attempt's heartbeat timeout (5 s), and its agent
 * polls again only then; but a worker started on the same machine can see, from the poll tickets
 * (activities/poll-tickets.ts), that the attempt's process has ended, and so that its poll is
 * closed at the service. It waits the close grace (the dead process's connection close on its
 * way), then fails each such attempt with `PollWorkerEnded`: the agent workflow polls again at
 * once, from this worker or another. An attempt Temporal no longer knows (timed out, completed)
 * is answered NOT_FOUND and skipped.
 */
import type { NativeConnection } from '@temporalio/worker';
import type { EndedAttempt, PollTickets } from '../activities/poll-tickets';
import { ActivityFailureTypes } from '../protocol/failures';

/** Attempts recorded longer ago than this are over at Temporal (the poll activity's start-to-close bound). */
const MAX_AGE_MS = 10 * 60_000;
const BATCH = 50;

export interface EndedPollsOptions {
  connection: NativeConnection;
  tickets: PollTickets;
  closeGraceMs: number;
}

/** Gives up the recorded poll attempts of ended processes; resolves to how many Temporal took. */
export async function giveUpEndedPolls(options: EndedPollsOptions): Promise<number> {
  const ended = options.tickets.endedAttempts(MAX_AGE_MS);
  if (ended.length === 0) return 0;
  await new Promise<void>((r) => setTimeout(r, options.closeGraceMs));
  let taken = 0;
  // A few at a time: a worker of many agents leaves one per agent.
  for (let i = 0; i < ended.length; i += BATCH) {
    const answers = await Promise.all(ended.slice(i, i + BATCH).map((a) => giveUp(options.connection, a)));
    taken += answers.filter(Boolean).length;
  }
  return taken;
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
