import {
  ActivityFailure,
  ApplicationFailure,
  RetryState,
  TimeoutFailure,
  TimeoutType,
} from '@temporalio/common';
import { failureInfo, requestVerdict, sendVerdict } from '../../../workflows/engine/request-policy';
import { ActivityFailureTypes as F } from '../../../protocol/failures';

const fromActivity = (cause: Error) =>
  new ActivityFailure(
    'activity failed',
    'sendMessage',
    '1',
    RetryState.MAXIMUM_ATTEMPTS_REACHED,
    'id',
    cause,
  );
const app = (type: string, details?: unknown) =>
  fromActivity(ApplicationFailure.create({ type, message: type, details: details ? [details] : [] }));

describe('failure verdicts', () => {
  it('treats only 429, 503 and refused connections as "not sent, retry"', () => {
    expect(sendVerdict(failureInfo(app(F.sendRejected, { status: 429, retryAfterMs: 1000 })))).toEqual({
      kind: 'rejected',
      rejection: { status: 429, retryAfterMs: 1000 },
    });
  });

  it('classifies an unknown agent or a refused token before any send as unauthorized, not ambiguous', () => {
    for (const type of [F.unknownAgent, F.unauthorized, F.sendUnauthorized]) {
      expect(sendVerdict(failureInfo(app(type)))).toEqual({ kind: 'final', type: 'SendUnauthorized' });
    }
    expect(sendVerdict(failureInfo(app(F.sendInvalid)))).toEqual({ kind: 'final', type: 'SendInvalid' });
  });

  it('treats 500s, drops, timeouts and anything unexpected as ambiguous', () => {
    expect(sendVerdict(failureInfo(app(F.sendAmbiguous)))).toEqual({ kind: 'ambiguous' });
    expect(sendVerdict(failureInfo(app('NoSuchFailureType')))).toEqual({ kind: 'ambiguous' });
    const timeout = failureInfo(
      fromActivity(new TimeoutFailure('heartbeat', undefined, TimeoutType.HEARTBEAT)),
    );
    expect(timeout.timedOut).toBe(true);
    expect(sendVerdict(timeout)).toEqual({ kind: 'ambiguous' });
    expect(sendVerdict(failureInfo(new Error('boom')))).toEqual({ kind: 'ambiguous' });
  });

  it('classifies failed polls and mark-reads: final, rate-limited with the hint, or transient', () => {
    expect(requestVerdict(failureInfo(app(F.invalidRequest)))).toEqual({ kind: 'final' });
    expect(requestVerdict(failureInfo(app(F.rateLimited, { status: 503 })))).toEqual({
      kind: 'rejected',
      rejection: { status: 503, retryAfterMs: undefined },
    });
    expect(requestVerdict(failureInfo(fromActivity(new Error('socket hang up'))))).toEqual({
      kind: 'transient',
    });
  });
});
