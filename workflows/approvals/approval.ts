/**
 * An approval asked from outside (`requestApproval`, `amsflow approval request`) and answered in
 * the chat: the question goes to the human, who answers yes or no by replying (quoting it, or a
 * bare word when it is the only approval pending), or reacts 👍/👎 to it. The first answer wins
 * and is final, the human gets a confirmation, and the workflow's result is the decision. A
 * silent human is reminded (`remindAfterMs`, at most three times); past the timeout the approval
 * expires and a late answer is told "Too late: expired at …". A cancel from outside ends it.
 */
import { setHandler } from '@temporalio/workflow';
import { approvalQuery } from '../../protocol/messages';
import type {
  ApprovalDecision,
  ApprovalDecisionKind,
  ApprovalInput,
  ApprovalView,
} from '../../protocol/approvals';
import { answerTime, decisionOf, APPROVAL_WORDS, formatInstant } from './approval-rules';
import { textMessage } from '../author/builders';
import { countApproval } from '../author/metrics';
import { current } from '../author/conversation-state';
import { nameConversation, useAgent } from '../author/handlers';
import { nudgeTimes } from '../author/prompt-rules';
import { enqueue, request } from '../author/sending';
import { beginWait, waitFor } from '../author/waiting';

export type { ApprovalDecision, ApprovalInput, ApprovalView } from '../../protocol/approvals';

/** Reminders of a pending approval, at most. */
const MAX_REMINDERS = 3;

/** The approval workflow (type `approvalWorkflow`, id `approval:<agentKey>:<id>`); a bot bundle re-exports it. */
// eslint-disable-next-line max-lines-per-function -- workflow code not yet cut into named steps (issue 20): left for a change that runs the replay suite on the cut
export async function approvalWorkflow(input: ApprovalInput): Promise<ApprovalDecision> {
  const startedAt = Date.now();
  const requestedAt = Math.min(input.requestedAt, startedAt);
  const expiresAt = startedAt + input.timeoutMs;
  const expiredText = `Too late: this approval expired at ${formatInstant(expiresAt)}.`;
  useAgent(input.agentKey, {
    cancelWords: [],
    cancelledText: () => `Approval cancelled: ${input.question}`,
    // A quoting answer after the expiry, while this workflow still runs (it ends at once).
    onLate: async (message) => void (await request(textMessage(expiredText, { replyTo: message }))),
  });
  nameConversation(`approval ${input.id}`);
  const conv = current();
  let decision: ApprovalDecision | undefined;
  setHandler(approvalQuery, (): ApprovalView => ({
    id: input.id,
    agentKey: input.agentKey,
    question: input.question,
    status: decision?.decision ?? 'pending',
    requestedAt: new Date(requestedAt).toISOString(),
    expiresAt: new Date(expiresAt).toISOString(),
    ...(decision ? { decision } : {}),
  }));

  const text = `Approval needed: ${input.question}\nReply yes or no (or react 👍 / 👎).`;
  const answers = { words: APPROVAL_WORDS, label: input.question };
  // The wait is registered by the question's send itself: no answer can slip in between.
  const waitId = beginWait(conv);
  const { messageId: questionId } = await request(textMessage(text), {
    reconcileAmbiguous: true,
    waitId,
    waitNextToo: false,
    answers,
  });
  const remindAfter = input.remindAfterMs;
  const reminders = remindAfter ? nudgeTimes(Date.now(), { after: remindAfter, max: MAX_REMINDERS }) : [];
  const decide = (kind: ApprovalDecisionKind, at: number, by?: string): ApprovalDecision => ({
    id: input.id,
    decision: kind,
    ...(by ? { by } : {}),
    at: new Date(Math.max(at, requestedAt)).toISOString(),
  });

  for (let registered = true; ; registered = false) {
    const got = await waitFor(
      conv,
      {
        questionId,
        next: false,
        reactions: true,
        deadline: expiresAt,
        cancelWords: [],
        signals: [],
        answers,
        lateText: expiredText,
        nudges: {
          times: reminders.filter((t) => t < expiresAt),
          send: () =>
            enqueue(textMessage(`Reminder: ${input.question} (yes or no?)`, { replyTo: questionId }), {
              onlyWhileWaiting: conv.activeWait!,
            }),
        },
      },
      registered,
    );
    if (got.kind === 'timeout') {
      decision = decide('expired', expiresAt);
      countApproval(input.agentKey, decision.decision);
      await request(textMessage(`Expired without an answer: ${input.question}`, { replyTo: questionId }));
      return decision;
    }
    if (got.kind === 'cancel') {
      decision = decide('cancelled', Date.now(), 'operator');
      countApproval(input.agentKey, decision.decision);
      return decision;
    }
    if (got.kind !== 'message' && got.kind !== 'reply' && got.kind !== 'reaction') continue;
    const kind = decisionOf(got.message);
    if (!kind) {
      await request(textMessage('Please answer yes or no.', { replyTo: got.message }));
      continue;
    }
    decision = decide(kind, answerTime(got.message, Date.now()) ?? Date.now(), got.message.from);
    countApproval(input.agentKey, decision.decision);
    const confirmation = kind === 'approved' ? 'Approved' : 'Rejected';
    // A reaction is no message to quote: the confirmation quotes the question reacted to.
    const quote = got.kind === 'reaction' ? questionId : got.message;
    await request(textMessage(`${confirmation}: ${input.question}`, { replyTo: quote }), {
      reconcileAmbiguous: true,
    });
    return decision;
  }
}
