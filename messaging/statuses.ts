/**
 * POST /statuses (spec 4.3): mark read and the typing indicator share one endpoint and body shape
 * but are paced on separate counters (spec 8), so the endpoint is chosen here from `typing`.
 */
import type { CallContext, RequestExecutor } from './request-executor';
import { AckSchema, statusBody } from './schemas';

/** Marks `messageId` read, with a typing indicator when `typing`; resolves to the ack's `success`. */
export async function postStatus(
  executor: RequestExecutor,
  messageId: string,
  typing: boolean,
  ctx: CallContext,
): Promise<boolean> {
  const res = await executor.execute(
    {
      kind: 'repeatable',
      endpoint: typing ? 'typing' : 'statuses',
      method: 'POST',
      url: executor.url('/statuses'),
      json: statusBody(messageId, typing),
    },
    ctx,
  );
  return executor.parseOrThrow(res, AckSchema, 'POST /statuses', 'an acknowledgement').success;
}
