import {
  isWorkerShutdown,
  type FailureInfo,
  refusalLine,
  refusalOf,
  refusedOutcome,
} from '../../../workflows/engine/request-policy';

const at = '2026-01-01T00:00:00.000Z';
const info = (type: string, details?: FailureInfo['details']): FailureInfo => ({
  type,
  message: 'GET /updates was refused (HTTP 401 code 190): the token is bad',
  details,
  timedOut: false,
});

describe('final refusals (request-policy.ts)', () => {
  it('stops the agent on a refused token, on a poll or a send', () => {
    expect(refusalOf('a1', 'poll', info('Unauthorized', { status: 401 }), at)).toEqual({
      status: 'unauthorized',
      where: 'poll',
      httpStatus: 401,
      at,
      message: expect.stringContaining('HTTP 401'),
      fix: 'the token of agent a1 was refused (401): set a valid token and restart the worker, or run `amsflow agent resume a1`',
    });
    const send = refusalOf('a1', 'send', info('SendUnauthorized', { status: 401, tokenRefused: true }), at);
    expect(send).toMatchObject({ status: 'unauthorized', where: 'send', httpStatus: 401 });
  });

  it('stops polling on a 4xx that must not be retried, naming the base URL; 403 on a poll is the token', () => {
    expect(refusalOf('a1', 'poll', info('InvalidRequest', { status: 404 }), at)).toMatchObject({
      status: 'refused',
      httpStatus: 404,
      fix: expect.stringContaining('check its base URL'),
    });
    expect(refusalOf('a1', 'poll', info('InvalidRequest', { status: 403 }), at)?.status).toBe('unauthorized');
  });

  it('does not stop the agent for what concerns one message, a rate limit, a replaced poll or a transient failure', () => {
    // 403 on a send: the recipient is not the creator; 400: the message is wrong.
    expect(refusalOf('a1', 'send', info('SendUnauthorized', { status: 403 }), at)).toBeUndefined();
    expect(refusalOf('a1', 'send', info('SendInvalid', { status: 400 }), at)).toBeUndefined();
    for (const type of ['RateLimited', 'StalePoll', 'UnknownAgent', 'Error', 'WorkerShutdown']) {
      expect(refusalOf('a1', 'poll', info(type), at)).toBeUndefined();
    }
  });

  it('fails sends asked for meanwhile with SendUnauthorized, saying what to do', () => {
    const refusal = refusalOf('a1', 'poll', info('Unauthorized', { status: 401 }), at)!;
    expect(refusedOutcome(refusal, 0)).toEqual({
      ok: false,
      type: 'SendUnauthorized',
      message: expect.stringContaining('amsflow agent resume a1'),
      attempts: 0,
    });
  });

  it('logs one short line without a stack', () => {
    const long = { ...info('Unauthorized', { status: 401 }), message: 'x'.repeat(5000) };
    const line = refusalLine('a1', refusalOf('a1', 'poll', long, at)!);
    expect(line.length).toBeLessThan(600);
    expect(line).toMatch(/^agent a1 stopped polling \(unauthorized\): the token of agent a1 was refused/);
  });

  it("tells a poll ended by a worker's graceful shutdown from a failure", () => {
    expect(isWorkerShutdown({ type: 'CancelledFailure', message: 'WORKER_SHUTDOWN', timedOut: false })).toBe(
      true,
    );
    expect(isWorkerShutdown({ type: 'WorkerShutdown', message: 'x', timedOut: false })).toBe(true);
    expect(isWorkerShutdown(info('Unauthorized'))).toBe(false);
  });
});
