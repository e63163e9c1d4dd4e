/**
 * The poll activity's requests: after `startAfterMs`, one long poll, or with `input.quiet` as many
 * as bring nothing the workflow needs now (empty pages, receipts nobody watches), paced by the
 * updates window (quiet-polling.ts); meanwhile the mark-reads it was handed ride along
 * (mark-reads.ts). `signal` aborts the polling (cancellation, or a newer poll of the same agent
 * on this worker); the mark-read in flight is let finish, and the report says what was done.
 * With a `lease`, every poll starts only once Temporal acknowledged the attempt (poll-lease.ts).
 */
import { CancelledFailure, Context } from '@temporalio/activity';
import { PollReplacedError } from '../messaging/errors';
import type { MessagingClient } from '../messaging/client';
import { flattenPage } from '../messaging/page';
import type { Status } from '../messaging/schemas';
import { failure, requestFailure, withPollReport } from './failure-mapping';
import { abortableSleep } from './abortable-sleep';
import { withHeartbeats } from './heartbeats';
import { rideMarkReads, type MarkReadReport } from './mark-reads';
import { PollLeaseLostError, type PollLease } from './poll-lease';
import { QuietPolling } from './quiet-polling';
import { ActivityFailureTypes as F, type PollInput, type PollOutput } from './types';

/** Time allowed for one long poll: its `timeout` and as much again (5 s at most) for the answer. */
const longPollMs = (timeoutSeconds: number) => timeoutSeconds * 1000 + Math.min(5000, timeoutSeconds * 1000);

/**
 * The poll activity: mark-reads riding along, then the polls; see the module comment. The agent's
 * client is looked up for each request (`clientOf`): a token changed while a quiet poll runs (a
 * fleet reload) takes effect at its next request.
 */
export async function pollWithMarkReads(
  clientOf: () => MessagingClient,
  input: PollInput,
  signal: AbortSignal,
  lease?: PollLease,
): Promise<PollOutput> {
  // Over: what may go at once still goes. Halted (the poll failed, was cancelled or outlived):
  // nothing more goes, since the workflow hands what is left to another poll.
  const ridden = new AbortController();
  const halted = new AbortController();
  const marking: Promise<MarkReadReport | undefined> = input.markRead
    ? rideMarkReads(
        input.markRead,
        (id) => clientOf().markRead(id),
        abortableSleep,
        ridden.signal,
        halted.signal,
      )
    : Promise.resolve(undefined);
  const quiet = input.quiet
    ? new QuietPolling(input.quiet, Date.now(), longPollMs(input.timeoutSeconds))
    : undefined;
  const progress: ReadPast = { statuses: [], offset: input.offset };
  try {
    // Mark-reads stopped by a failure that may pass: the workflow retries them with its next
    // poll, so this one stops being quiet (an idle chat would otherwise leave them for minutes).
    if (quiet) void marking.then((report) => report?.failure !== undefined && quiet.endAtNextPoll());
    const result = await pollPages(clientOf, input, signal, quiet, progress, lease);
    ridden.abort();
    const report = await marking;
    return report ? { ...result, markRead: report } : result;
  } catch (err) {
    // What it did goes with the poll's failure: a 429 a mark-read met must be waited out by the
    // next poll's, what was marked is not marked twice, the quiet polls count in the window, and
    // the receipts read past are not read again (the next poll starts after them).
    const quietPolls = quiet?.failedAt(Date.now());
    halted.abort();
    ridden.abort();
    const { statuses: readPast, offset: offsetAfter } = progress;
    throw withPollReport(err, { markRead: await marking, quietPolls, readPast, offsetAfter });
  } finally {
    ridden.abort();
  }
}

/** The receipts quiet polls read past so far, and the offset after them (the input's at first). */
interface ReadPast {
  statuses: Status[];
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
  const { statuses: readPast } = progress;
  const extras = () => ({
    ...(quiet && quiet.pollEnds.length > 0 ? { quietPolls: quiet.pollEnds } : {}),
    ...(readPast.length > 0 ? { readPast, offsetAfter: progress.offset } : {}),
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
