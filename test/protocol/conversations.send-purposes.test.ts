/**
 * Send requests are split by purpose (protocol/conversations.ts): an out-of-band send, a workflow's send,
 * a question, a nudge. The schema every send handler parses with refuses a request that mixes
 * purposes, at the boundary, with the field at fault named; the types refuse the same at compile
 * time. Waits are a union on `wait`.
 */
import { sendRequestSchema, schemaProblem, waitRequestSchema } from '../../protocol/message-schemas';
import type { NudgeSend, QuestionSend, Receipt, SendRequest, WaitRequest } from '../../protocol';

const message = { type: 'text', text: { body: 'hi' } };
const base = { requestId: 'r1', message };
const fromWorkflow = { ...base, requester: 'agent:a:msg:1', handlerSeq: 1 };

function problem(value: unknown): string | undefined {
  const parsed = sendRequestSchema.safeParse(value);
  return parsed.success ? undefined : schemaProblem(parsed.error);
}

describe('send requests by purpose', () => {
  it('takes each purpose as amsflow sends it', () => {
    const requests: SendRequest[] = [
      { ...base, retryAmbiguous: true },
      fromWorkflow,
      {
        ...fromWorkflow,
        expectReply: true,
        waitId: 2,
        waitNextToo: false,
        answerWords: ['yes'],
        answerLabel: 'q',
      },
      { ...fromWorkflow, onlyWhileWaiting: 2, reconcileAmbiguous: true },
    ];
    for (const req of requests) expect(problem(req)).toBeUndefined();
  });

  it.each([
    ['a question field without expectReply', { ...fromWorkflow, waitId: 2 }, /waitId: only a question/],
    [
      'answer words without expectReply',
      { ...fromWorkflow, answerWords: ['yes'] },
      /answerWords: only a question/,
    ],
    [
      'a question that is also a nudge',
      { ...fromWorkflow, expectReply: true, onlyWhileWaiting: 1 },
      /onlyWhileWaiting/,
    ],
    [
      'a question without a requester',
      { ...base, expectReply: true },
      /requester: required with expectReply/,
    ],
    [
      'a nudge without a requester',
      { ...base, onlyWhileWaiting: 1 },
      /requester: required with onlyWhileWaiting/,
    ],
    [
      'a place in line without a requester',
      { ...base, handlerSeq: 1 },
      /requester: required with handlerSeq/,
    ],
    ['expectReply: false (not a purpose)', { ...fromWorkflow, expectReply: false }, /expectReply/],
  ])('refuses %s', (_name, value, expected) => {
    expect(problem(value)).toMatch(expected);
  });

  it('refuses a mix of purposes at compile time too', () => {
    // @ts-expect-error a nudge is not a question
    const mixed: SendRequest = { ...fromWorkflow, expectReply: true, onlyWhileWaiting: 1 };
    // @ts-expect-error a question needs its requester
    const orphan: QuestionSend = { ...base, expectReply: true };
    const nudge: NudgeSend = { ...fromWorkflow, onlyWhileWaiting: 3 };
    // Reading another purpose's field off any request compiles: it is absent there.
    const asRequest: SendRequest = nudge;
    expect([mixed, orphan, asRequest.waitId, asRequest.onlyWhileWaiting]).toHaveLength(4);
  });
});

describe('waits as a union on `wait`', () => {
  it('takes a start and an end, and refuses a wait without its kind', () => {
    const start: WaitRequest = {
      workflowId: 'w',
      wait: true,
      waitId: 1,
      questionId: 'q',
      answerWords: ['no'],
    };
    const end: WaitRequest = { workflowId: 'w', wait: false, waitId: 1, lateText: 'too late' };
    expect(waitRequestSchema.safeParse(start).success).toBe(true);
    expect(waitRequestSchema.safeParse(end).success).toBe(true);
    expect(waitRequestSchema.safeParse({ workflowId: 'w', questionId: 'q' }).success).toBe(false);
    // @ts-expect-error an ended wait has no question
    const wrong: WaitRequest = { workflowId: 'w', wait: false, questionId: 'q' };
    expect(wrong.wait).toBe(false);
  });

  it('types a receipt status by the values the service names, and lets a newer one through', () => {
    const known: Receipt = { messageId: 'm', status: 'delivered' };
    const newer: Receipt = { messageId: 'm', status: 'played' };
    expect([known.status, newer.status]).toEqual(['delivered', 'played']);
  });
});
