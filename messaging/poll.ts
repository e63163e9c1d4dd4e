/**
 * The plain (non-durable) poll loop, following the spec's "Client poll loop rules":
 * 1. the offset comes from `next_offset`; after a 204 the same offset is polled again;
 * 2. the offset is saved to an {@link OffsetStore} once a page has been handled, so a restart resumes;
 * 3. a message already handled in this process is not yielded twice (unless `dedupe: false`).
 *
 * Delivery is at least once: an item counts as handled when the consumer asks for the next one,
 * and the page's `next_offset` is saved only after its last item was handled. A consumer that
 * stops mid-page (break, throw, crash) sees the unhandled rest of that page again next time.
 */
import { exponentialBackoffMs, type BackoffSettings } from '../core/backoff';
import { sleep } from './clock';
import {
  ApiError,
  ClientClosedError,
  NotAcceptedError,
  PollReplacedError,
  RateLimitError,
  TransportError,
} from './errors';
import { contactOf, pageBatches } from './page';
import type { RecentIds } from './recent-ids';
import type { Contact, InboundMessage, Status, UpdatePage } from './schemas';

/** Where a poll loop keeps its offset between runs. */
export interface OffsetStore {
  /** The saved offset, or undefined when none was saved yet. */
  load(): Promise<number | undefined> | number | undefined;
  /** Saves the offset to poll from next. */
  save(offset: number): Promise<void> | void;
}

/** An {@link OffsetStore} in memory: survives a new iterator, not a new process. */
export class InMemoryOffsetStore implements OffsetStore {
  private offset: number | undefined;

  constructor(initial?: number) {
    this.offset = initial;
  }

  load(): number | undefined {
    return this.offset;
  }

  save(offset: number): void {
    this.offset = offset;
  }
}

/** One item yielded by the poll loop. */
export type PollEvent =
  | {
      kind: 'message';
      message: InboundMessage;
      /** The contact entry of the sender, from the same page. */
      contact: Contact | undefined;
    }
  | { kind: 'status'; status: Status };

/** Options of {@link MessagingClient.poll}. */
export interface PollOptions {
  /** Offset to start from. Default: the offset store's saved offset, else 0. */
  offset?: number;
  /** Where the offset is loaded from and saved to. Default: none (the offset lives in the iterator). */
  offsetStore?: OffsetStore;
  /** Skip messages (by id) and receipts (by id and status) already handled by this client. Default true. */
  dedupe?: boolean;
  /** Long-poll wait in seconds, 0 to 25. Default 25 (the fewest requests per minute). */
  timeout?: number;
  /** Page size. Default: the service's (50). */
  limit?: number;
  /**
   * What a 409 (poll replaced by a newer poll) does. `'throw'` (default) ends the iteration with a
   * {@link PollReplacedError}: two loops on one token would keep replacing each other, and the spec
   * says not to retry. `'retry'` polls again from the same offset after a backoff, for setups where a
   * stale poll (e.g. of a killed process) is the only possible cause.
   */
  onPollReplaced?: 'throw' | 'retry';
  /**
   * Called with a transient failure (network, 5xx, 429, 503) that outlived the client's own retries,
   * or a 409 under `onPollReplaced: 'retry'`, and the wait before the loop tries again. The loop never
   * gives up on these. Default: none.
   */
  onError?: (error: Error, retryInMs: number) => void;
}

/** What the poll loop needs from the client. */
export interface PollSource {
  getUpdates(
    params: { offset: number; limit?: number; timeout: number },
    signal?: AbortSignal,
  ): Promise<UpdatePage | null>;
  readonly backoff: BackoffSettings;
  readonly handled: RecentIds;
}

export const DEFAULT_POLL_TIMEOUT_S = 25;

function isTransient(err: unknown): boolean {
  return (
    err instanceof TransportError ||
    err instanceof RateLimitError ||
    err instanceof NotAcceptedError ||
    (err instanceof ApiError && err.status >= 500)
  );
}

/** The poll loop as an async iterator; `signal` ends it quietly (without an error). */
export async function* pollLoop(
  source: PollSource,
  options: PollOptions = {},
  signal?: AbortSignal,
): AsyncGenerator<PollEvent, void, undefined> {
  const { offsetStore, limit } = options;
  const dedupe = options.dedupe ?? true;
  const timeout = options.timeout ?? DEFAULT_POLL_TIMEOUT_S;
  let offset = options.offset ?? (await offsetStore?.load()) ?? 0;
  let failures = 0;

  while (!signal?.aborted) {
    let page: UpdatePage | null;
    try {
      page = await source.getUpdates({ offset, limit, timeout }, signal);
      failures = 0;
    } catch (err) {
      if (signal?.aborted || err instanceof ClientClosedError) return;
      const replacedRetry = err instanceof PollReplacedError && options.onPollReplaced === 'retry';
      if (!replacedRetry && !isTransient(err)) throw err;
      const delay =
        err instanceof RateLimitError && err.retryAfterMs !== undefined
          ? err.retryAfterMs
          : exponentialBackoffMs(failures, source.backoff);
      failures += 1;
      options.onError?.(err as Error, delay);
      try {
        await sleep(delay, signal);
      } catch {
        return;
      }
      continue;
    }
    if (page === null) continue; // 204: nothing new, poll the same offset again.

    for (const batch of pageBatches(page)) {
      for (const message of batch.messages) {
        const key = `message:${message.id}`;
        if (dedupe && source.handled.has(key)) continue;
        yield { kind: 'message', message, contact: contactOf(batch, message) };
        // Reached only when the consumer asks for the next item, i.e. it has handled this one.
        source.handled.add(key);
      }
      for (const status of batch.statuses) {
        const key = `status:${status.id}:${status.status}`;
        if (dedupe && source.handled.has(key)) continue;
        yield { kind: 'status', status };
        source.handled.add(key);
      }
    }
    offset = page.next_offset;
    await offsetStore?.save(offset);
  }
}
