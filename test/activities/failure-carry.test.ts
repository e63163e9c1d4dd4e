/**
 * A failed poll carries what it did (activities/failure-mapping.ts `withPollReport`): its riding
 * mark-reads and its quiet polls, and the agent workflow reads it back (workflows/engine/failure.ts
 * `pollReportOf`): a 429 a mark-read met is waited out even when the poll itself failed, and the
 * polls it made count in the updates window.
 */
import { ActivityFailure, ApplicationFailure, CancelledFailure, RetryState } from '@temporalio/common';
import { requestFailure, withPollReport } from '../../activities/failure-mapping';
import type { MarkReadReport } from '../../activities/mark-reads';
import { ActivityFailureTypes as F } from '../../activities/types';
import { NotAcceptedError, RateLimitError, TransportError } from '../../messaging/errors';
import { failureInfo, pollReportOf, requestVerdict } from '../../workflows/engine/failure';

const report: MarkReadReport = {
  done: ['m1'],
  refused: [],
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

describe('a failed poll carries its mark-reads and quiet polls', () => {
  it('keeps a rate limit the type and Retry-After the workflow reads, and adds the report', () => {
    const poll429 = requestFailure(new RateLimitError('slow down', { status: 429, body: {} }, 3000));
    const carried = withPollReport(poll429, { markRead: report, quietPolls: [500, 900] });
    const info = failureInfo(asReceived(carried));
    expect(info.type).toBe(F.rateLimited);
    expect(requestVerdict(info)).toEqual({
      kind: 'rejected',
      rejection: { status: 429, retryAfterMs: 3000 },
    });
    expect(pollReportOf(asReceived(carried))).toEqual({ markRead: report, quietPolls: [500, 900] });
  });

  it('names a plain error by its class, as the SDK would, and makes it non-retryable', () => {
    const carried = withPollReport(new TransportError('socket hang up', 'connection', undefined), {
      markRead: report,
    });
    expect(carried).toBeInstanceOf(ApplicationFailure);
    expect((carried as ApplicationFailure).type).toBe('TransportError');
    expect((carried as ApplicationFailure).nonRetryable).toBe(true);
    expect(requestVerdict(failureInfo(asReceived(carried)))).toEqual({ kind: 'transient' });
    expect(pollReportOf(asReceived(carried))).toEqual({ markRead: report });
  });

  it('carries quiet polls without mark-reads', () => {
    const carried = withPollReport(requestFailure(new NotAcceptedError('busy', { status: 503, body: {} })), {
      quietPolls: [100],
    });
    expect(pollReportOf(asReceived(carried))).toEqual({ quietPolls: [100] });
  });

  it('leaves a cancellation, and a failure with nothing to report, as they are', () => {
    const cancelled = new CancelledFailure('poll cancelled');
    expect(withPollReport(cancelled, { markRead: report, quietPolls: [1] })).toBe(cancelled);
    const busy = requestFailure(new NotAcceptedError('busy', { status: 503, body: {} }));
    expect(withPollReport(busy, { quietPolls: [] })).toBe(busy);
    expect(pollReportOf(asReceived(busy))).toEqual({});
  });
});
