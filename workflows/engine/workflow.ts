/**
 * The agent workflow, one per agent (`agent:<agentKey>`): wiring only. It builds its parts from
 * the carried state (`AgentRuntime`), runs the poll, outbox and status loops, answers the
 * signals, update and query of the protocol, and continues as new before its history grows
 * large, carrying everything in flight. Each rule lives in its part; see `workflows/README.md`.
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  releaseSignal,
  resumeSignal,
  sendRequestSignal,
  sendUpdate,
  stateQuery,
  typingSignal,
  waitSignal,
  wakeSignal,
} from '../../protocol/messages';
import {
  releaseSchema,
  resumeSchema,
  sendRequestSchema,
  typingSchema,
  waitRequestSchema,
} from '../../protocol/message-schemas';
import { dropSignal, setCheckedSignal, setCheckedUpdate, signalProblem } from '../author/checked-handlers';
import type { AgentStateView, SendRequest } from '../../protocol';
import type { AgentWorkflowInput } from './state-types';
import { runPollLoop, route, type PollHandle } from './poll-loop';
import { AgentRuntime, PATCH_CAN_WAITS_FOR_POLL } from './runtime';
import { notifyRequester, runOutbox } from './send-loop';
import { invalidRequestOutcome, sendRequestProblem } from './send-request';
import { SignalTracker } from './signal-tracker';
import { runStatusLoop } from './status-loop';
import { reportOutbox } from '../author/metrics';

/** Patch ids: behaviour that differs from runs recorded before the rule changed. */
const PATCH_IDLE_OUTBOX_SLEEPS = 'amsflow-idle-outbox-sleeps';
const PATCH_WINDOW_ONE_CLOCK = 'amsflow-window-one-clock';

export async function agentWorkflow(input: AgentWorkflowInput): Promise<void> {
  // Runs recorded before this rule woke the idle outbox every `orderingGraceMs`.
  const idleTimer = !patched(PATCH_IDLE_OUTBOX_SLEEPS);
  // Runs recorded before this rule fed the windows the worker's clock.
  const rt = new AgentRuntime(input, !patched(PATCH_WINDOW_ONE_CLOCK));
  const signals = new SignalTracker();
  const poll: PollHandle = {};
  registerHandlers(rt, signals);

  // Every loop has an owner: a loop that fails fails this workflow task, visibly, instead of
  // rejecting unhandled while the others go on.
  // (Started in this order: the order of their first commands is part of recorded histories.)
  let fail: (err: unknown) => void = () => undefined;
  let pollDone: Promise<void> = Promise.resolve();
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
    runOutbox(rt, signals, idleTimer).catch(reject);
    pollDone = runPollLoop(rt, signals, poll);
    pollDone.catch(reject);
  });
  rt.fail = fail;
  const statusDone = runStatusLoop(rt);
  statusDone.catch(fail);
  const watch = <T>(step: Promise<T>): Promise<T> => Promise.race([step, failed]);

  await watch(
    condition(
      () =>
        workflowInfo().continueAsNewSuggested ||
        workflowInfo().historyLength >= rt.tuning.continueAsNewAfterEvents,
    ),
  );
  rt.draining = true;
  await watch(statusDone);
  const drained = () =>
    !rt.outbox.sending &&
    !rt.outbox.hasUpdateCallers &&
    !rt.processingPage &&
    rt.heldAnswers === 0 &&
    allHandlersFinished() &&
    signals.size === 0;
  for (;;) {
    await watch(condition(drained));
    if (!poll.scope || !patched(PATCH_CAN_WAITS_FOR_POLL)) break;
    // The open poll ends before the next run's first poll starts: two at once would cost the
    // older a 409 (a concurrent poll). Its worker learns of the cancellation by its heartbeat.
    rt.pollEnding = true;
    poll.scope.cancel();
    await watch(pollDone);
    if (drained()) break;
    // Work came meanwhile (an update caller): poll again, and drain that first.
    rt.pollEnding = false;
    pollDone = runPollLoop(rt, signals, poll);
    pollDone.catch(fail);
  }
  poll.scope?.cancel();
  await continueAsNew<typeof agentWorkflow>({ ...input, carried: rt.collect() });
}

function registerHandlers(rt: AgentRuntime, signals: SignalTracker): void {
  const enqueue = (req: SendRequest, via: 'update' | 'signal') => {
    const taken = rt.outbox.enqueue(req, via, rt.inboundSeq);
    reportOutbox(rt);
    // A handler's first request ends its hold on later handlers' first replies.
    if (taken !== 'duplicate' && req.handlerSeq !== undefined) rt.order.release(req.handlerSeq);
    if (typeof taken === 'object' && via === 'signal' && req.requester) {
      notifyRequester(signals, req.requester, req.requestId, taken.refused);
    }
  };

  setCheckedUpdate(
    sendUpdate,
    sendRequestSchema,
    async (req) => {
      enqueue(req, 'update');
      await condition(() => rt.outbox.outcomes.has(req.requestId));
      return rt.outbox.outcomes.get(req.requestId)!;
    },
    sendRequestProblem,
  );

  setHandler(sendRequestSignal, (req: unknown) => {
    const problem = sendRequestProblem(req) ?? signalProblem(sendRequestSchema, req);
    if (problem) {
      // Nobody to answer without a requester; with one, it must not wait forever.
      const { requester, requestId } = (
        typeof req === 'object' && req !== null ? req : {}
      ) as Partial<SendRequest>;
      if (typeof requester === 'string' && typeof requestId === 'string') {
        notifyRequester(signals, requester, requestId, invalidRequestOutcome(problem));
      }
      rt.noteError('send', new Error(problem));
      dropSignal(sendRequestSignal.name, problem);
      return;
    }
    const sent = req as SendRequest;
    const known = rt.outbox.outcomes.get(sent.requestId);
    if (known && sent.requester) notifyRequester(signals, sent.requester, sent.requestId, known);
    else enqueue(sent, 'signal');
  });

  setCheckedSignal(waitSignal, waitRequestSchema, async (req) => {
    const { workflowId, wait, waitId, questionId, nextToo, answerWords, label, lateText } = req;
    if (wait) {
      const answers = answerWords ? { words: answerWords, label: label ?? '' } : undefined;
      rt.router.register({ workflowId, waitId }, questionId, nextToo, answers);
      return;
    }
    // A wait that ended after a message was routed to it hands the message back.
    const back = rt.router.end({ workflowId, waitId }, lateText);
    if (back) await route(rt, back.message, back.seq);
  });

  setHandler(wakeSignal, () => {
    rt.wakeRequested = true;
  });

  setCheckedSignal(releaseSignal, releaseSchema, ({ seq }) => rt.order.release(seq));

  setCheckedSignal(typingSignal, typingSchema, ({ messageId }) => rt.statuses.addTyping(messageId));

  setCheckedSignal(resumeSignal, resumeSchema, () => rt.resume());

  setHandler(stateQuery, (): AgentStateView => ({
    agentKey: rt.agentKey,
    generation: rt.generation,
    offset: rt.cursor.offset,
    recipientKnown: rt.cursor.recipient !== undefined,
    queueLength: rt.outbox.length,
    sending: rt.outbox.sending?.requestId,
    waiters: rt.router.counts,
    pendingMarkRead: rt.statuses.pendingMarkRead,
    dropped: { markRead: rt.statuses.dropped, receipts: rt.ledger.dropped },
    historyLength: workflowInfo().historyLength,
    draining: rt.draining,
    lastError: rt.lastError,
    counters: rt.counters,
    status: rt.refusal?.status ?? 'running',
    ...(rt.refusal ? { refusal: rt.refusal } : {}),
    poll: {
      ...(rt.pollEndedAt === undefined ? {} : { lastEndedAt: new Date(rt.pollEndedAt).toISOString() }),
      ...(rt.pollDueBy === undefined || rt.draining ? {} : { dueBy: new Date(rt.pollDueBy).toISOString() }),
    },
  }));
}
