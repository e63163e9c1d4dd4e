/**
 * amsflow's activities: thin wrappers over `messaging/` that turn outcomes into Temporal failures
 * with stable type names. Built by a factory over a registry of clients keyed by agent key, so
 * the token never enters workflow arguments or history.
 */
import { Context } from '@temporalio/activity';
import type { MessagingClient } from '../messaging/client';
import { failure, requestFailure, sendFailure } from './failure-mapping';
import { OpenPolls, POLL_CLOSE_GRACE_MS } from './open-polls';
import { PollLease, type AskLease } from './poll-lease';
import { PollTickets, waitAfterLost } from './poll-tickets';
import { withHeartbeats } from './heartbeats';
import { abortableSleep } from './abortable-sleep';
import { markReads, type MarkReadReport } from './mark-reads';
import { pollUpdatesOf } from './polling';
import {
  ActivityFailureTypes as F,
  type MarkReadInput,
  type PollInput,
  type PollOutput,
  type SendInput,
  type SendOutput,
  type StatusInput,
  type StatusOutput,
} from './types';

export * from './types';

/**
 * Clients by agent key (a Map, or the worker's registry that a fleet reload changes). The engine's
 * clients pace nothing and retry nothing: the workflow decides.
 */
export interface ClientRegistry {
  get(agentKey: string): MessagingClient | undefined;
}

/** How the worker asks Temporal to acknowledge an activity attempt (worker/poll-lease.ts). */
export type LeaseAsker = (attempt: { namespace: string; taskToken: Uint8Array }) => AskLease;

export interface ActivitiesOptions {
  /** With it, a poll starts only once Temporal acknowledged its attempt (activities/poll-lease.ts). */
  askLease?: LeaseAsker;
  /** After a poll ended aborted, how long the agent's next poll here waits (open-polls.ts). */
  pollCloseGraceMs?: number;
  /**
   * Where each poll attempt notes its process, so that the poll after a timed-out one can tell a
   * dead worker's poll (no wait) from one that may still be open (poll-tickets.ts); false: none.
   * Default: a directory per user under the system's temporary directory.
   */
  pollTicketsDir?: string | false;
  /**
   * The id of the namespace the worker serves (DescribeNamespace), recorded in each poll's ticket:
   * a worker starting on this machine gives up only its own cluster's attempts (poll-tickets.ts).
   */
  namespaceId?: string;
}

export function createActivities(registry: ClientRegistry, options: ActivitiesOptions = {}) {
  const openPolls = new OpenPolls({ closeGraceMs: options.pollCloseGraceMs, sleep: abortableSleep });
  const tickets = new PollTickets(options.pollTicketsDir);
  /** How long a poll waits before its first request: its own wait, or a lost poll's if longer. */
  const startAfter = (ctx: Context, input: PollInput): number => {
    const own = input.startAfterMs ?? 0;
    if (!input.lostPoll) return own;
    const { verdict, sinceEndedMs } = tickets.lostPoll(input.agentKey, input.lostPoll.ticket);
    const waitMs = waitAfterLost(
      verdict,
      input.lostPoll.waitMs,
      options.pollCloseGraceMs ?? POLL_CLOSE_GRACE_MS,
      sinceEndedMs,
    );
    ctx.log.info('poll after a lost poll', { agentKey: input.agentKey, lostAttempt: verdict, waitMs });
    return Math.max(own, waitMs);
  };
  const clientFor = (agentKey: string): MessagingClient => {
    const client = registry.get(agentKey);
    if (!client) {
      throw failure(F.unknownAgent, `No client is configured on this worker for agent "${agentKey}"`, true);
    }
    return client;
  };
  const leaseOf = (ctx: Context): PollLease | undefined => {
    const { info } = ctx;
    if (!options.askLease || !info.heartbeatTimeoutMs) return undefined;
    const ask = options.askLease({ namespace: info.activityNamespace, taskToken: info.taskToken });
    return new PollLease(ask, info.heartbeatTimeoutMs, { now: Date.now, sleep: abortableSleep });
  };

  return {
    /**
     * One long poll, or with `input.quiet` as many as bring nothing needed now within
     * `quiet.forMs`, paced by the updates window (see polling.ts). Heartbeats while waiting; cancelling it aborts the request (no state
     * changes), and so does a newer poll of the same agent on this worker (see open-polls.ts).
     */
    async pollUpdates(input: PollInput): Promise<PollOutput> {
      // Unknown here: refused at once, before any request.
      clientFor(input.agentKey);
      const ctx = Context.current();
      // An older poll of this agent still open on this worker has outlived its activity: end it.
      const open = await openPolls.begin(input.agentKey, ctx.cancellationSignal);
      const signal = AbortSignal.any([ctx.cancellationSignal, open.stale]);
      // Read before this attempt's own ticket replaces the lost one's.
      const startAfterMs = startAfter(ctx, input);
      const run = ctx.info.workflowExecution;
      if (run) {
        const attempt = {
          namespace: ctx.info.activityNamespace,
          ...(options.namespaceId ? { namespaceId: options.namespaceId } : {}),
          taskToken: Buffer.from(ctx.info.taskToken).toString('base64'),
          workflowId: run.workflowId,
          runId: run.runId,
        };
        await tickets.record(
          input.agentKey,
          `${run.workflowId}/${run.runId}/${ctx.info.activityId}`,
          attempt,
        );
      }
      try {
        const polled = { ...input, startAfterMs };
        return await pollUpdatesOf(() => clientFor(input.agentKey), polled, signal, leaseOf(ctx));
      } catch (err) {
        if (open.stale.aborted && !ctx.cancellationSignal.aborted) {
          throw failure(F.stalePoll, (open.stale.reason as Error).message, true);
        }
        throw err;
      } finally {
        // Aborted: its close may reach the service after a next poll would (open-polls.ts).
        open.end({ aborted: signal.aborted });
      }
    },

    /**
     * Exactly one send attempt (the workflow schedules it with `maximumAttempts: 1`), after the
     * mark-reads riding with it (read, then answer; whatever becomes of them, the send goes). The
     * request is not aborted on cancellation or worker shutdown: an aborted send is ambiguous.
     */
    async sendMessage(input: SendInput): Promise<SendOutput> {
      const client = clientFor(input.agentKey);
      const read = input.markRead?.length
        ? await withHeartbeats(markReadsBounded(client, input.markRead))
        : undefined;
      const startedAt = Date.now();
      try {
        const result = await withHeartbeats(client.send({ ...input.message, to: input.to }));
        return {
          messageId: result.messageId,
          recipient: result.recipient,
          startedAt,
          ...(read ? { markRead: read } : {}),
        };
      } catch (err) {
        throw sendFailure(err, startedAt, read);
      }
    },

    /** Marks messages read, a request each, one at a time (activities/mark-reads.ts); the report says what became of each. */
    async markRead(input: MarkReadInput): Promise<MarkReadReport> {
      const client = clientFor(input.agentKey);
      return withHeartbeats(markReadsBounded(client, input.messageIds));
    },

    async sendTyping(input: StatusInput): Promise<StatusOutput> {
      const startedAt = Date.now();
      try {
        await withHeartbeats(clientFor(input.agentKey).sendTyping(input.messageId));
        return { startedAt };
      } catch (err) {
        throw requestFailure(err);
      }
    },

    /** Uploads media given as base64 (keep it small: it is stored in history). */
    async uploadMedia(input: {
      agentKey: string;
      dataBase64: string;
      mimeType: string;
      filename?: string;
    }): Promise<{ id: string }> {
      try {
        const id = await withHeartbeats(
          clientFor(input.agentKey).uploadMedia(Buffer.from(input.dataBase64, 'base64'), {
            mimeType: input.mimeType,
            filename: input.filename,
          }),
        );
        return { id };
      } catch (err) {
        throw requestFailure(err);
      }
    },

    async getMedia(input: { agentKey: string; mediaId: string }): Promise<Record<string, unknown>> {
      try {
        return { ...(await withHeartbeats(clientFor(input.agentKey).getMedia(input.mediaId))) };
      } catch (err) {
        throw requestFailure(err);
      }
    },

    async deleteMedia(input: { agentKey: string; mediaId: string }): Promise<{ success: boolean }> {
      try {
        return { success: await clientFor(input.agentKey).deleteMedia(input.mediaId) };
      } catch (err) {
        throw requestFailure(err);
      }
    },

    /** Downloads received media as base64 (checked against its sha256 when known). */
    async downloadMedia(input: {
      agentKey: string;
      mediaId: string;
    }): Promise<{ dataBase64: string; mimeType?: string }> {
      try {
        const media = await withHeartbeats(clientFor(input.agentKey).downloadMedia(input.mediaId));
        return { dataBase64: Buffer.from(media.data).toString('base64'), mimeType: media.mimeType };
      } catch (err) {
        throw requestFailure(err);
      }
    },
  };
}

/**
 * How long a mark-read may take before it is given up as failed (it may have been counted): a
 * reply never waits longer than this for the read ticks riding ahead of it.
 */
const MARK_READ_MAX_MS = 5000;

function markReadsBounded(client: MessagingClient, ids: string[]): Promise<MarkReadReport> {
  return markReads(
    ids,
    (id, signal) => client.markRead(id, { signal }),
    AbortSignal.timeout(MARK_READ_MAX_MS),
  );
}

export type Activities = ReturnType<typeof createActivities>;
