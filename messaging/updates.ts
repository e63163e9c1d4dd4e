/**
 * One GET /updates (spec 4.2), shared by the public getUpdates(), the poll loop and the recipient
 * discovery poll, so that all three tell the recipient tracker about the poll in the same way,
 * and read a page's members in the same way (page-members.ts).
 */
import { recipientFromPage } from './page';
import { type MemberReading, readUpdatePage } from './page-members';
import type { RecipientTracker } from './recipient';
import type { CallContext, RequestExecutor } from './request-executor';
import { UPDATES_QUERY, type UpdatePage, UpdatePageWireSchema } from './schemas';

/** Long-poll wait the service uses when `timeout` is not given (spec 4.2), seconds. */
const SERVICE_DEFAULT_POLL_TIMEOUT_S = 15;

export interface GetUpdatesParams {
  /** Position to read from: `next_offset` of the previous page; the same value after a 204. */
  offset?: number;
  /** Page size. Default: the service's (50). */
  limit?: number;
  /** Long-poll wait in seconds, 0 to 25. Default: the service's (15). */
  timeout?: number;
  /**
   * Largest answer read, bytes; a larger one fails with an UnexpectedResponseError whose
   * `overLimitBytes` is set (read again with a smaller `limit`). Default 4 MiB (4194304).
   */
  maxBytes?: number;
}

/**
 * One GET /updates: the page, or null on 204. The recipient is learned from the page; members
 * that do not fit are read as `reading` says.
 */
export async function fetchUpdates(
  executor: RequestExecutor,
  recipient: RecipientTracker,
  params: GetUpdatesParams,
  reading: MemberReading,
  ctx: CallContext,
): Promise<UpdatePage | null> {
  const url = executor.url('/updates');
  if (params.offset !== undefined) url.searchParams.set(UPDATES_QUERY.offset, String(params.offset));
  if (params.limit !== undefined) url.searchParams.set(UPDATES_QUERY.limit, String(params.limit));
  if (params.timeout !== undefined) url.searchParams.set(UPDATES_QUERY.timeout, String(params.timeout));
  recipient.notePoll();
  const res = await executor.execute(
    {
      kind: 'repeatable',
      endpoint: 'updates',
      method: 'GET',
      url,
      // Beyond the long-poll window, so that an ordinary wait is not a failure.
      extraReadMs: (params.timeout ?? SERVICE_DEFAULT_POLL_TIMEOUT_S) * 1000,
      isPoll: true,
      ...(params.maxBytes === undefined ? {} : { maxResponseBytes: params.maxBytes }),
    },
    ctx,
  );
  if (res.status === 204) return null;
  const wire = executor.parseOrThrow(res, UpdatePageWireSchema, 'GET /updates', 'an update page');
  const page = readUpdatePage(wire, reading);
  recipient.learn(recipientFromPage(page));
  return page;
}
