/**
 * An approval asked from outside (`requestApproval`, `amsflow approval request`) and answered in
 * the chat: the question goes to the human, who answers yes or no by replying (quoting it, or a
 * bare word when it is the only approval pending), or reacts 👍/👎 to it. The first answer wins
 * and is final, the human gets a confirmation, and the workflow's result is the decision, naming
 * the message that decided it. A silent human is reminded (`remindAfterMs`, at most three times);
 * past the timeout the approval expires and a late answer is told "Too late: expired at …". A
 * cancel from outside ends it, recorded as the operator's.
 *
 * Only the human decides: an answer counts only once the agent confirms it routed that very
 * message here (the routing proof, protocol/conversations.ts); any other `amsflow.inbound` (a signal
 * from the CLI, the UI, any client) is dropped, logged and counted, and the wait goes on.
 */
import { log, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import { approvalQuery, inboundSignal } from '../../protocol/messages';
import { answerTime, decisionOf, APPROVAL_WORDS, formatInstant } from './approval-rules';
import { showInvisible } from '../../core/visible-text';
import { textMessage } from '../author/builders';
import { countApproval, countDroppedSignal } from '../author/metrics';
import { current } from '../author/conversation-state';
import { nameConversation, useAgent } from '../author/handlers';
import { nudgeTimes } from '../author/prompt-rules';
import { enqueue, request } from '../author/sending';
import { waitFor } from '../author/waiting';
import { gistOf, type RoutingActivities, type RoutedMessage } from '../../protocol/conversations';
import {
  type ApprovalDecision,
  type ApprovalDecisionKind,
  type ApprovalInput,
  type ApprovalView,
} from '../../protocol/approvals';

export type { ApprovalDecision, ApprovalInput, ApprovalView } from '../../protocol/approvals';

/** Reminders of a pending approval, at most. */
const MAX_REMINDERS = 3;

const routing = proxyActivities<RoutingActivities>({
  startToCloseTimeout: '30 seconds',
  // A proof lost with its worker is asked again after 5 s (a query: it may run twice).
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

/**
 * `routed` when the agent routed it to this approval's wait `waitId` (its record of the delivery
 * matches the message's gist: protocol/conversations.ts), or undefined (dropped, logged, counted) for a
 * message it did not route here: only the human's own answer decides.
 */
async function routedByAgent(
  agentKey: string,
  routed: RoutedMessage,
  waitId: number | undefined,
): Promise<RoutedMessage | undefined> {
  const proof = await routing.amsflowRoutedByAgent(agentKey, routed.message.id);
  if (
    proof &&
    proof.gist === gistOf(routed.message) &&
    (proof.waitId === undefined || proof.waitId === waitId)
  )
    return routed;
  const { workflowType, workflowId } = workflowInfo();
  log.warn(
    `${workflowType}: a message the agent did not route here was dropped (forged ${inboundSignal.name}?)`,
    {
      workflowId,
      messageId: routed.message.id,
    },
  );
  countDroppedSignal(workflowType, inboundSignal.name);
  return undefined;
}

/** The approval workflow (type `approvalWorkflow`, id `approval:<agentKey>:<id>`); a bot bundle re-exports it. */
export async function approvalWorkflow(input: ApprovalInput): Promise<ApprovalDecision> {
  // The question as the human reads it: no character that reorders or hides what follows.
  const question = showInvisible(input.question);
  const startedAt = Date.now();
  const requestedAt = Math.min(input.requestedAt, startedAt);
  const expiresAt = startedAt + input.timeoutMs;
  const expiredText = `Too late: this approval expired at ${formatInstant(expiresAt)}.`;
  useAgent(input.agentKey, {
    cancelWords: [],
    cancelledText: () => `Approval cancelled: ${question}`,
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

  const text = `Approval needed: ${question}\nReply yes or no (or react 👍 / 👎).`;
  const answers = {
    words: APPROVAL_WORDS,
    label: question,
    ...(input.askedBy === undefined ? {} : { askedBy: input.askedBy }),
  };
  // The wait is registered by the question's send itself: no answer can slip in between.
  const waitId = conv.beginWait();
  const { messageId: questionId } = await request(textMessage(text), {
    reconcileAmbiguous: true,
    waitId,
    waitNextToo: false,
    answers,
  });
  const remindAfter = input.remindAfterMs;
  const reminders = remindAfter ? nudgeTimes(Date.now(), { after: remindAfter, max: MAX_REMINDERS }) : [];
  const decide = (
    kind: ApprovalDecisionKind,
    at: number,
    by?: string,
    messageId?: string,
  ): ApprovalDecision => ({
    id: input.id,
    decision: kind,
    ...(by ? { by } : {}),
    ...(messageId ? { messageId } : {}),
    ...(input.subject === undefined ? {} : { subject: input.subject }),
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
        verify: (routed) => routedByAgent(input.agentKey, routed, conv.activeWait),
        nudges: {
          times: reminders.filter((t) => t < expiresAt),
          send: () =>
            enqueue(textMessage(`Reminder: ${question} (yes or no?)`, { replyTo: questionId }), {
              onlyWhileWaiting: conv.activeWait!,
            }),
        },
      },
      registered,
    );
    if (got.kind === 'timeout') {
      decision = decide('expired', expiresAt);
      countApproval(input.agentKey, decision.decision);
      await request(textMessage(`Expired without an answer: ${question}`, { replyTo: questionId }));
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
    decision = decide(
      kind,
      answerTime(got.message, Date.now()) ?? Date.now(),
      got.message.from,
      got.message.id,
    );
    countApproval(input.agentKey, decision.decision);
    const confirmation = kind === 'approved' ? 'Approved' : 'Rejected';
    // A reaction is no message to quote: the confirmation quotes the question reacted to.
    const quote = got.kind === 'reaction' ? questionId : got.message;
    await request(textMessage(`${confirmation}: ${question}`, { replyTo: quote }), {
      reconcileAmbiguous: true,
    });
    return decision;
  }
}
