import { invalidRequestOutcome, sendRequestProblem } from '../../../workflows/engine/send-request';

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
