/**
 * The poll activity's requests: after `startAfterMs`, one long poll, or with `input.quiet` as many
 * as bring nothing the workflow needs now (empty pages, receipts nobody watches), paced by the
 * updates window (quiet-polling.ts). `signal` aborts the polling (cancellation, or a newer poll
 * of the same agent on this worker), and a failure's report says what was done. With a `lease`, every poll starts only once Temporal acknowledged the attempt (poll-lease.ts).
 *
 * No input stops the agent here. Page members that do not fit their schema come as the client
 * reads them (messaging/page-members.ts: a message as type `unknown`), logged at WARN by id,
 * problem and size, never by content. A result is never larger than the budget
 * ({@link PollBudget}), because Temporal refuses a larger payload and the same page would be
 * fetched for ever: a page too large is read again at the same offset with a smaller `limit` (the
 * smaller page has its own `next_offset`), and one item too large on its own is handed on cut,
 * marked `truncated` (messaging/size-bounds.ts). The polls read again count in the updates window
 * like the quiet ones (`quietPolls`); they are not paced, as they are few (one, mostly).
 */
import { CancelledFailure, Context } from '@temporalio/activity';
import { PollReplacedError, UnexpectedResponseError } from '../messaging/errors';
import type { MessagingClient } from '../messaging/client';
import { type FlatPage, flattenPage } from '../messaging/page';
import {
  type Misfit,
  type Status,
  type Truncation,
  UNREADABLE_TYPE,
  type UpdatePage,
} from '../messaging/schemas';
import { cutItemsToFit, DEFAULT_CUT_STRING_BYTES, jsonBytes } from '../messaging/size-bounds';
import { failure, requestFailure, withPollReport } from './failure-mapping';
import { abortableSleep } from './abortable-sleep';
import { withHeartbeats } from './heartbeats';
import { PollLeaseLostError, type PollLease } from './poll-lease';
import { QuietPolling } from './quiet-polling';
import { ActivityFailureTypes as F, type PollInput, type PollOutput } from './types';

/** How large a poll result may be, and how an item too large on its own is cut. */
export interface PollBudget {
  /**
   * Largest result, as JSON bytes (what Temporal's JSON converter encodes). Default 1500000:
   * under Temporal's default 2 MiB payload limit, with room for the payload codec's overhead.
   */
  maxResultBytes: number;
  /** What a string of an item too large on its own is cut to, UTF-8 bytes. Default 16384. */
  cutStringBytes: number;
  /**
   * Largest answer read for a page of one item, bytes. A larger page is read at the client's cap
   * (4 MiB) and, over it, again with a smaller limit. Default 16 MiB (16777216); an item larger
   * still cannot be read at all, and the poll fails (`UnexpectedResponseError`).
   */
  maxItemAnswerBytes: number;
}

export const DEFAULT_POLL_BUDGET: Readonly<PollBudget> = Object.freeze({
  maxResultBytes: 1_500_000,
  cutStringBytes: DEFAULT_CUT_STRING_BYTES,
  maxItemAnswerBytes: 16 * 1024 * 1024,
});

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
  budget: Partial<PollBudget> = {},
): Promise<PollOutput> {
  const quiet = input.quiet
    ? new QuietPolling(input.quiet, Date.now(), longPollMs(input.timeoutSeconds))
    : undefined;
  const progress: Progress = { statuses: [], readAt: [], offset: input.offset, rereads: [] };
  const poller: Poller = {
    clientOf,
    input,
    signal,
    quiet,
    progress,
    lease,
    budget: { ...DEFAULT_POLL_BUDGET, ...budget },
  };
  try {
    return await pollPages(poller);
  } catch (err) {
    // What it did goes with the poll's failure: the quiet polls and the pages read again count
    // in the window, and the receipts read past are not read again (the next poll starts after them).
    const ends = [...(quiet?.failedAt(Date.now()) ?? []), ...progress.rereads].sort((a, b) => a - b);
    const quietPolls = quiet || ends.length > 0 ? ends : undefined;
    const { statuses: readPast, readAt: readPastAt, offset: offsetAfter } = progress;
    throw withPollReport(err, { quietPolls, readPast, readPastAt, offsetAfter });
  }
}

/**
 * What the activity did so far: the receipts quiet polls read past, when each was read (worker
 * clock), the offset after them (the input's at first), and when each poll whose page was read
 * again with a smaller limit ended.
 */
interface Progress {
  statuses: Status[];
  readAt: number[];
  offset: number;
  rereads: number[];
}

/** One poll activity's polling: what it was given and what it did. */
interface Poller {
  clientOf: () => MessagingClient;
  input: PollInput;
  signal: AbortSignal;
  quiet: QuietPolling | undefined;
  progress: Progress;
  lease: PollLease | undefined;
  budget: PollBudget;
}

type PagePoll = Extract<PollOutput, { status: 'page' }>;

/** An answer over the size it was read with (its `overLimitBytes`): read again, smaller. */
const TOO_LARGE = Symbol('too large');
type Read = UpdatePage | null | typeof TOO_LARGE;

/** What the result carries besides its page: the polls before the one returned, receipts read past. */
function extrasOf(p: Poller) {
  const { quiet, progress } = p;
  const ends = [...(quiet?.pollEnds ?? []), ...progress.rereads].sort((a, b) => a - b);
  const { statuses: readPast, readAt: readPastAt } = progress;
  return {
    ...(ends.length > 0 ? { quietPolls: ends } : {}),
    ...(readPast.length > 0 ? { readPast, readPastAt, offsetAfter: progress.offset } : {}),
  };
}

async function pollPages(p: Poller): Promise<PollOutput> {
  const ctx = Context.current();
  const { input, quiet, progress } = p;
  const { statuses: readPast, readAt: readPastAt } = progress;
  let waitMs = input.startAfterMs ?? 0;
  for (;;) {
    try {
      if (waitMs > 0) await withHeartbeats(abortableSleep(waitMs, p.signal));
      await p.lease?.confirm(p.signal);
      const startedAt = Date.now();
      const read = await readPage(p, { limit: input.limit, timeout: input.timeoutSeconds });
      if (!read) {
        const decision = quiet?.afterPoll('nothing', Date.now());
        if (!decision || decision.action === 'return') return { status: 'empty', startedAt, ...extrasOf(p) };
        waitMs = decision.afterMs;
        continue;
      }
      const flat = read === TOO_LARGE ? undefined : flattenPage(read);
      if (flat && flat.messages.length === 0 && quiet?.mayReadPast(flat.statuses.map((s) => s.id))) {
        logMisfits(input.agentKey, flat.misfits);
        readPast.push(...flat.statuses);
        for (const _ of flat.statuses) readPastAt.push(Date.now());
        progress.offset = flat.nextOffset;
        const decision = quiet.afterPoll('receipts', Date.now());
        if (decision.action === 'return') return { status: 'empty', startedAt, ...extrasOf(p) };
        waitMs = decision.afterMs;
        continue;
      }
      return await withinBudget(p, read, startedAt);
    } catch (err) {
      if (err instanceof PollReplacedError)
        return { status: 'replaced', startedAt: Date.now(), ...extrasOf(p) };
      // Cancelled (continue-as-new, worker shutdown): report it as such, not as a failure.
      if (ctx.cancellationSignal.aborted) throw cancellationOf(ctx.cancellationSignal);
      // Given up by Temporal (poll-lease.ts): no poll was started; another may be open by now.
      if (err instanceof PollLeaseLostError) throw failure(F.pollLeaseLost, err.message, false);
      throw requestFailure(err);
    }
  }
}

/**
 * One GET /updates at the offset: the page, null (204), or {@link TOO_LARGE} when its answer is
 * over `maxBytes` (the client's cap when not given).
 */
async function readPage(
  p: Poller,
  query: { limit: number; timeout: number; maxBytes?: number },
): Promise<Read> {
  try {
    const params = { offset: p.progress.offset, ...query };
    return await withHeartbeats(p.clientOf().getUpdates(params, { signal: p.signal }));
  } catch (err) {
    if (err instanceof UnexpectedResponseError && err.overLimitBytes !== undefined) return TOO_LARGE;
    throw err;
  }
}

/**
 * The result of `first` (the page polled, or its answer too large to read), within the budget:
 * the same offset read again with a smaller limit while it is not, down to one item, which is
 * then cut. An answer too large to read even for one item is read once more at
 * `maxItemAnswerBytes`.
 */
async function withinBudget(
  p: Poller,
  first: UpdatePage | typeof TOO_LARGE,
  startedAt: number,
): Promise<PollOutput> {
  const { budget } = p;
  let read: Read = first;
  let limit = p.input.limit;
  let itemSized = false;
  for (;;) {
    if (read === null) return { status: 'empty', startedAt, ...extrasOf(p) };
    if (read === TOO_LARGE) {
      if (limit === 1 && itemSized) throw itemTooLarge(p);
      itemSized = limit === 1;
      limit = Math.max(1, Math.floor(limit / 2));
    } else {
      const flat = flattenPage(read);
      const out = pageResult(p, flat, startedAt, limit);
      const items = flat.messages.length + flat.statuses.length;
      if (jsonBytes(out) <= budget.maxResultBytes) return logged(p, out, flat.misfits);
      // One item left, or a service that ignores `limit`: cut, never read again for ever.
      if (items <= 1 || items > limit) return cutToFit(p, out, flat.misfits);
      limit = Math.max(1, Math.min(fittingCount(out, flat, budget.maxResultBytes), items - 1));
    }
    p.progress.rereads.push(Date.now());
    await p.lease?.confirm(p.signal);
    const query = { limit, timeout: 0, ...(itemSized ? { maxBytes: budget.maxItemAnswerBytes } : {}) };
    read = await readPage(p, query);
  }
}

/** The result of a page (read with `limit`), with the receipts read past before it. */
function pageResult(p: Poller, flat: FlatPage, startedAt: number, limit: number): PagePoll {
  const { statuses: readPast, readAt: readPastAt, rereads } = p.progress;
  const { quietPolls } = extrasOf(p);
  return {
    status: 'page',
    nextOffset: flat.nextOffset,
    messages: flat.messages,
    statuses: [...readPast, ...flat.statuses],
    ...(readPast.length > 0 ? { readPastAt } : {}),
    contacts: flat.contacts,
    startedAt,
    ...(quietPolls ? { quietPolls } : {}),
    ...(flat.misfits.length > 0 ? { misfits: flat.misfits } : {}),
    ...(rereads.length > 0 ? { reread: { limit, polls: rereads.length } } : {}),
  };
}

/**
 * How many items of `flat` a result may hold whichever they are: as many of the largest as fit
 * beside the rest of the result (the service's order of messages and receipts is not the page's).
 */
function fittingCount(out: PagePoll, flat: FlatPage, maxBytes: number): number {
  // Each item's JSON and its comma.
  const sizes = [...flat.messages, ...flat.statuses].map((item) => jsonBytes(item) + 1).sort((a, b) => b - a);
  let room = maxBytes - (jsonBytes(out) - sizes.reduce((sum, size) => sum + size, 0));
  let count = 0;
  for (const size of sizes) {
    if (size > room) break;
    room -= size;
    count += 1;
  }
  return count;
}

/** `out` cut until it fits (messaging/size-bounds.ts `cutItemsToFit`), its cuts logged by id and size. */
function cutToFit(p: Poller, out: PagePoll, misfits: Misfit[]): PagePoll {
  const { maxResultBytes, cutStringBytes } = p.budget;
  const cut = cutItemsToFit(
    // Receipts read past stay: `readPastAt` is matched to them by position.
    { messages: out.messages, statuses: out.statuses, keepStatusesBefore: p.progress.statuses.length },
    jsonBytes(out),
    { maxBytes: maxResultBytes, cutStringBytes },
  );
  const all = [...misfits, ...cut.skipped];
  const result: PagePoll = {
    ...out,
    messages: cut.messages,
    statuses: cut.statuses,
    ...(all.length > 0 ? { misfits: all } : {}),
  };
  for (const message of cut.changed) {
    Context.current().log.warn('poll: a message too large for a poll result was cut', {
      agentKey: p.input.agentKey,
      id: message.id,
      originalBytes: (message.truncated as Truncation).originalBytes,
      keptBytes: jsonBytes(message),
      handedOnAsUnknown: message.type === UNREADABLE_TYPE,
    });
  }
  return logged(p, result, all);
}

/** The members that did not fit, logged (by id, problem and size: never content), with `out`. */
function logged(p: Poller, out: PagePoll, misfits: Misfit[]): PagePoll {
  logMisfits(p.input.agentKey, misfits);
  return out;
}

function logMisfits(agentKey: string, misfits: Misfit[]): void {
  for (const { kind, action, id, problems, bytes } of misfits) {
    Context.current().log.warn('poll: a page member did not fit', {
      agentKey,
      kind,
      action,
      id,
      problems,
      bytes,
    });
  }
}

/** The poll's failure when one item at the offset is too large to read at all. */
function itemTooLarge(p: Poller) {
  return failure(
    UnexpectedResponseError.name,
    `GET /updates: the update at offset ${p.progress.offset} is over ${p.budget.maxItemAnswerBytes} bytes on ` +
      "its own and cannot be read; raise the poll budget's maxItemAnswerBytes, or mark it read.",
    true,
    { status: 200 },
  );
}

/** The cancellation an aborted activity reports (the SDK's, when it gave one). */
function cancellationOf(signal: AbortSignal): CancelledFailure {
  return signal.reason instanceof CancelledFailure ? signal.reason : new CancelledFailure('poll cancelled');
}
