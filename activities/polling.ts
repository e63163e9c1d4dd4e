/**
 * The poll activity's requests: after `startAfterMs`, one long poll, or with `input.quiet` as many
 * as bring nothing the workflow needs now (empty pages, receipts nobody watches), paced by the
 * updates window (quiet-polling.ts). `signal` aborts the polling (cancellation, or a newer poll
 * of the same agent on this worker), and a failure's report says what was done. With a `lease`, every poll starts only once Temporal acknowledged the attempt (poll-lease.ts).
 */
import { CancelledFailure, Context } from '@temporalio/activity';
import { PollReplacedError } from '../messaging/errors';
import type { MessagingClient } from '../messaging/client';
import { flattenPage } from '../messaging/page';
import type { Status } from '../messaging/schemas';
import { failure, requestFailure, withPollReport } from './failure-mapping';
import { abortableSleep } from './abortable-sleep';
import { withHeartbeats } from './heartbeats';
import { PollLeaseLostError, type PollLease } from './poll-lease';
import { QuietPolling } from './quiet-polling';
import { ActivityFailureTypes as F, type PollInput, type PollOutput } from './types';

/** Time allowed for one long poll: its `timeout` and as much again (5 s at most) for the answer. */
const longPollMs = (timeoutSeconds: number) => timeoutSeconds * 1000 + Math.min(5000, timeoutSeconds * 1000);

/**
 * The poll activity's requests; see the module comment. The agent's client is looked up for each
 * request (`clientOf`): a token changed while a quiet poll runs (a fleet reload) takes effect at
 * its next request.
 */
export async function pollUpdatesOf(
  clientOf: () => MessagingClient,
  input: PollInput,
  signal: AbortSignal,
  lease?: PollLease,
): Promise<PollOutput> {
  const quiet = input.quiet
    ? new QuietPolling(input.quiet, Date.now(), longPollMs(input.timeoutSeconds))
    : undefined;
  const progress: ReadPast = { statuses: [], readAt: [], offset: input.offset };
  try {
    return await pollPages(clientOf, input, signal, quiet, progress, lease);
  } catch (err) {
    // What it did goes with the poll's failure: the quiet polls count in the window, and the
    // receipts read past are not read again (the next poll starts after them).
    const quietPolls = quiet?.failedAt(Date.now());
    const { statuses: readPast, readAt: readPastAt, offset: offsetAfter } = progress;
    throw withPollReport(err, { quietPolls, readPast, readPastAt, offsetAfter });
  }
}

/**
 * The receipts quiet polls read past so far, when each was read (worker clock), and the offset
 * after them (the input's at first).
 */
interface ReadPast {
  statuses: Status[];
  readAt: number[];
  offset: number;
}

async function pollPages(
  clientOf: () => MessagingClient,
  input: PollInput,
  signal: AbortSignal,
  quiet: QuietPolling | undefined,
  progress: ReadPast,
  lease: PollLease | undefined,
): Promise<PollOutput> {
  const ctx = Context.current();
  const { statuses: readPast, readAt: readPastAt } = progress;
  const extras = () => ({
    ...(quiet && quiet.pollEnds.length > 0 ? { quietPolls: quiet.pollEnds } : {}),
    ...(readPast.length > 0 ? { readPast, readPastAt, offsetAfter: progress.offset } : {}),
  });
  let waitMs = input.startAfterMs ?? 0;
  for (;;) {
    try {
      if (waitMs > 0) await withHeartbeats(abortableSleep(waitMs, signal));
      await lease?.confirm(signal);
      const startedAt = Date.now();
      const query = { offset: progress.offset, limit: input.limit, timeout: input.timeoutSeconds };
      const page = await withHeartbeats(clientOf().getUpdates(query, { signal }));
      if (!page) {
        const decision = quiet?.afterPoll('nothing', Date.now());
        if (!decision || decision.action === 'return') return { status: 'empty', startedAt, ...extras() };
        waitMs = decision.afterMs;
        continue;
      }
      const flat = flattenPage(page);
      const ids = flat.statuses.map((s) => s.id);
      if (flat.messages.length === 0 && quiet?.mayReadPast(ids)) {
        readPast.push(...flat.statuses);
        for (const _ of flat.statuses) readPastAt.push(Date.now());
        progress.offset = flat.nextOffset;
        const decision = quiet.afterPoll('receipts', Date.now());
        if (decision.action === 'return') return { status: 'empty', startedAt, ...extras() };
        waitMs = decision.afterMs;
        continue;
      }
      return {
        status: 'page',
        nextOffset: flat.nextOffset,
        messages: flat.messages,
        statuses: [...readPast, ...flat.statuses],
        ...(readPast.length > 0 ? { readPastAt } : {}),
        contacts: flat.contacts,
        startedAt,
        ...(quiet && quiet.pollEnds.length > 0 ? { quietPolls: quiet.pollEnds } : {}),
      };
    } catch (err) {
      if (err instanceof PollReplacedError) return { status: 'replaced', startedAt: Date.now(), ...extras() };
      // Cancelled (continue-as-new, worker shutdown): report it as such, not as a failure.
      if (ctx.cancellationSignal.aborted) throw cancellationOf(ctx.cancellationSignal);
      // Given up by Temporal (poll-lease.ts): no poll was started; another may be open by now.
      if (err instanceof PollLeaseLostError) throw failure(F.pollLeaseLost, err.message, false);
      throw requestFailure(err);
    }
  }
}

/** The cancellation an aborted activity reports (the SDK's, when it gave one). */
function cancellationOf(signal: AbortSignal): CancelledFailure {
  return signal.reason instanceof CancelledFailure ? signal.reason : new CancelledFailure('poll cancelled');
}
