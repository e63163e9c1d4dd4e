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
    expect(s.halt(refusal('unauthorized'), 100)).toBe(true);
    expect(s.halt(refusal('refused'), 200)).toBe(false);
    expect(s.refusal?.status).toBe('unauthorized');
    expect(s.resume(300)?.status).toBe('unauthorized');
    expect(s.refusal).toBeUndefined();
    expect(s.resume(400)).toBeUndefined();
  });

  it('ignores a refusal of a request handed out before the last resume (the old token), carried', () => {
    const s = new AgentStatus();
    // A worker with a new token resumes the agent (no refusal yet) at 1000; the failure of the
    // poll the old worker made at 900 arrives after it.
    expect(s.resume(1000)).toBeUndefined();
    expect(s.predatesResume(900)).toBe(true);
    expect(s.halt(refusal('unauthorized'), 900)).toBe(false);
    expect(s.refusal).toBeUndefined();
    // A request handed out at or after the resume is refused with the new token: that stops it.
    const next = new AgentStatus({ resumedAt: s.resumedAt });
    expect(next.predatesResume(1000)).toBe(false);
    expect(next.halt(refusal('unauthorized'), 1000)).toBe(true);
    expect(next.refusal?.status).toBe('unauthorized');
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
