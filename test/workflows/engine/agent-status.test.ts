import { AgentStatus } from '../../../workflows/engine/agent-status';
import type { AgentRefusal } from '../../../protocol';

const refusal = (status: AgentRefusal['status']): AgentRefusal => ({
  status,
  where: 'poll',
  httpStatus: 401,
  at: '2026-11-25T00:00:00.000Z',
  message: 'no',
  fix: 'a new token',
});

describe('agent status', () => {
  it('keeps the first refusal until resumed, and tells whether a halt was new', () => {
    const s = new AgentStatus();
    expect(s.halt(refusal('unauthorized'))).toBe(true);
    expect(s.halt(refusal('refused'))).toBe(false);
    expect(s.refusal?.status).toBe('unauthorized');
    expect(s.resume()?.status).toBe('unauthorized');
    expect(s.refusal).toBeUndefined();
    expect(s.resume()).toBeUndefined();
  });

  it('books the last error, and carries both from the run before', () => {
    const s = new AgentStatus({ refusal: refusal('refused') });
    s.noteError('send', { message: 'boom' }, 'T');
    expect(s.lastError).toEqual({ at: 'T', where: 'send', type: 'Error', message: 'boom' });
    s.noteError('poll', { type: 'Unauthorized', message: 'no' }, 'U');
    expect(s.lastError).toMatchObject({ where: 'poll', type: 'Unauthorized' });
    expect(s.refusal?.status).toBe('refused');
  });
});
