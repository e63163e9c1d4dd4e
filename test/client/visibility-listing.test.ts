/**
 * The one visibility listing both `listApprovals` and `listConversations` use
 * (client/visibility-listing.ts): its pure rules, without a server. The listings themselves run
 * against the dev server in approvals.test.ts and conversations.test.ts.
 */
import { byStartTime, noAnswer, taskQueueClause } from '../../client/visibility-listing';
import { approvalListQuery } from '../../client/approval-listing';
import { allListQuery } from '../../client/conversation-listing';

describe('visibility listing', () => {
  it('puts a task queue in a query as it is, and refuses what visibility cannot escape', () => {
    expect(taskQueueClause('amsflow')).toBe("TaskQueue = 'amsflow'");
    for (const bad of ["it's", 'say "hi"', 'back\\slash'])
      expect(() => taskQueueClause(bad)).toThrow(
        new TypeError(`task queue ${JSON.stringify(bad)}: quotes and backslashes are not supported here`),
      );
  });

  it('is the same task queue rule for approvals and conversations', () => {
    expect(approvalListQuery(undefined, 'q1')).toContain(taskQueueClause('q1'));
    expect(allListQuery('q1')).toContain(taskQueueClause('q1'));
    expect(() => approvalListQuery(undefined, "q'")).toThrow(TypeError);
    expect(() => allListQuery("q'")).toThrow(TypeError);
  });

  it('orders oldest first, then by workflow id', () => {
    const listed = [
      { workflowId: 'b', startTime: '2026-11-25T10:00:01.000Z' },
      { workflowId: 'c', startTime: '2026-11-25T10:00:00.000Z' },
      { workflowId: 'a', startTime: '2026-11-25T10:00:01.000Z' },
    ];
    expect([...listed].sort(byStartTime).map((l) => l.workflowId)).toEqual(['c', 'a', 'b']);
  });

  it('says why a workflow gave no state', () => {
    expect(noAnswer(new Error('deadline exceeded'))).toBe('no answer: deadline exceeded');
    expect(noAnswer('gone')).toBe('no answer: gone');
  });
});
