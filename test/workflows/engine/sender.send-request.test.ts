import { ApplicationFailure } from '@temporalio/common';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { agentMoving } from '../../../client/agents';
import {
  invalidRequestOutcome,
  refuseWhileMoving,
  sendRequestProblem,
} from '../../../workflows/engine/sender';

describe('send request check', () => {
  it('accepts a well-formed request', () => {
    expect(
      sendRequestProblem({ requestId: 'r1', message: { type: 'text', text: { body: 'x' } } }),
    ).toBeUndefined();
  });

  it.each([
    [null, 'must be an object'],
    [{ message: { type: 'text' } }, 'non-empty requestId'],
    [{ requestId: '', message: { type: 'text' } }, 'non-empty requestId'],
    [{ requestId: 'r', message: {} }, 'message with a type'],
    [{ requestId: 'r', message: { type: 'text' }, requester: 5 }, 'requester'],
  ])('names what is wrong with %j', (req, problem) => {
    expect(sendRequestProblem(req)).toContain(problem);
  });

  it('answers a malformed request with a typed SendInvalid outcome', () => {
    expect(invalidRequestOutcome('x')).toMatchObject({ ok: false, type: 'SendInvalid', attempts: 0 });
  });
});

describe('a send while the agent moves to its next run', () => {
  it('is refused as AgentMoving only while draining, and the client knows to send again', () => {
    expect(() => refuseWhileMoving(false)).not.toThrow();
    let refusal: unknown;
    try {
      refuseWhileMoving(true);
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(ApplicationFailure);
    expect((refusal as ApplicationFailure).type).toBe('AgentMoving');
    expect(agentMoving(new WorkflowUpdateFailedError('rejected', refusal as Error))).toBe(true);
    const other = ApplicationFailure.create({ type: 'TypeError', message: 'bad request' });
    expect(agentMoving(new WorkflowUpdateFailedError('rejected', other))).toBe(false);
    expect(agentMoving(refusal)).toBe(false);
  });
});
