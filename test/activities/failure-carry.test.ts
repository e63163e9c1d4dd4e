/**
 * A failed or cancelled poll carries what it did (activities/failure-mapping.ts `withPollReport`):
 * its quiet polls and the receipts it read past, and the agent workflow reads it back
 * (workflows/engine/request-policy.ts `pollReportOf`): the polls it made count in the updates window,
 * and receipts read past are not read again. A failed send carries what became of the
 * mark-reads that went before it (`sendFailure`), so the workflow books them instead of sending
 * them again.
 */
import { ActivityFailure, ApplicationFailure, CancelledFailure, RetryState } from '@temporalio/common';
import { requestFailure, sendFailure, withPollReport } from '../../activities/failure-mapping';
import type { MarkReadReport } from '../../activities/mark-reads';
import { ActivityFailureTypes as F } from '../../activities/types';
import { NotAcceptedError, RateLimitError, TransportError } from '../../messaging/errors';
import { failureInfo, pollReportOf, requestVerdict } from '../../workflows/engine/request-policy';

const report: MarkReadReport = {
  done: ['m1'],
  refused: [],
  failed: ['m2'],
  times: [1000, 2000],
  failure: 'rate limited',
  retryAfterMs: 1000,
};

/** As the workflow receives an activity's failure. */
const asReceived = (failure: unknown) =>
  new ActivityFailure(
    'activity failed',
    'pollUpdates',
    '1',
    RetryState.NON_RETRYABLE_FAILURE,
    undefined,
    failure as Error,
  );

describe('a failed or cancelled poll carries what it did', () => {
  it('keeps a rate limit the type and Retry-After the workflow reads, and adds the report', () => {
    const poll429 = requestFailure(new RateLimitError('slow down', { status: 429, body: {} }, 3000));
    const carried = withPollReport(poll429, { quietPolls: [500, 900] });
    const info = failureInfo(asReceived(carried));
    expect(info.type).toBe(F.rateLimited);
    expect(requestVerdict(info)).toEqual({
      kind: 'rejected',
      rejection: { status: 429, retryAfterMs: 3000 },
    });
    expect(pollReportOf(asReceived(carried))).toEqual({ quietPolls: [500, 900] });
  });

  it('names a plain error by its class, as the SDK would, and makes it non-retryable', () => {
    const carried = withPollReport(new TransportError('socket hang up', 'connection', undefined), {
      quietPolls: [7],
    });
    expect(carried).toBeInstanceOf(ApplicationFailure);
    expect((carried as ApplicationFailure).type).toBe('TransportError');
    expect((carried as ApplicationFailure).nonRetryable).toBe(true);
    expect(requestVerdict(failureInfo(asReceived(carried)))).toEqual({ kind: 'transient' });
    expect(pollReportOf(asReceived(carried))).toEqual({ quietPolls: [7] });
  });

  it('carries the receipts read past, when each was read, and the offset after them, on a failure as on a cancellation', () => {
    const readPast = [{ id: 'wamid.1', status: 'sent', timestamp: '1', recipient_id: 'u' }];
    const failed = withPollReport(requestFailure(new NotAcceptedError('busy', { status: 503, body: {} })), {
      readPast,
      readPastAt: [1234],
      offsetAfter: 42,
    });
    expect(pollReportOf(asReceived(failed))).toEqual({ readPast, readPastAt: [1234], offsetAfter: 42 });

    const cancelled = withPollReport(new CancelledFailure('poll cancelled'), {
      quietPolls: [1],
      readPast,
      offsetAfter: 42,
    });
    expect(cancelled).toBeInstanceOf(CancelledFailure);
    expect((cancelled as CancelledFailure).message).toBe('poll cancelled');
    expect(pollReportOf(asReceived(cancelled))).toEqual({
      quietPolls: [1],
      readPast,
      offsetAfter: 42,
    });
  });

  it('leaves a failure or a cancellation with nothing to report as it is', () => {
    const cancelled = new CancelledFailure('poll cancelled');
    expect(withPollReport(cancelled, { readPast: [], offsetAfter: 7 })).toBe(cancelled);
    expect(pollReportOf(asReceived(cancelled))).toEqual({});
    const busy = requestFailure(new NotAcceptedError('busy', { status: 503, body: {} }));
    expect(withPollReport(busy, {})).toBe(busy);
    expect(pollReportOf(asReceived(busy))).toEqual({});
  });

  it('says "no poll besides this one" for a quiet poll ended in its first request, so that the workflow books one', () => {
    // (Without it, its silence reads as a lost worker's, and the most it may have made is booked.)
    const cancelled = withPollReport(new CancelledFailure('poll cancelled'), { quietPolls: [] });
    expect(pollReportOf(asReceived(cancelled))).toEqual({ quietPolls: [] });
    const busy = withPollReport(requestFailure(new NotAcceptedError('busy', { status: 503, body: {} })), {
      quietPolls: [],
    });
    expect(pollReportOf(asReceived(busy))).toEqual({ quietPolls: [] });
  });
});

describe('a failed send carries what became of the mark-reads that went before it', () => {
  it('keeps its own verdict and details, and adds the report for the workflow', () => {
    const failed = sendFailure(new RateLimitError('slow down', { status: 429, body: {} }, 2000), 123, report);
    const info = failureInfo(asReceived(failed));
    expect(info.type).toBe(F.sendRejected);
    expect(info.details).toEqual({ startedAt: 123, status: 429, retryAfterMs: 2000, markRead: report });
  });

  it('carries none when none rode with it', () => {
    const failed = sendFailure(new TransportError('socket hang up', 'connection', undefined), 5);
    expect(failureInfo(asReceived(failed)).details?.markRead).toBeUndefined();
  });
});
