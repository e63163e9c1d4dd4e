/**
 * The agent workflow: its wiring (the parts, the loops, one-line handlers, continue-as-new) and
 * the answer to its `state` query, read from the parts.
 */
import {
  condition,
  getExternalWorkflowHandle,
  makeContinueAsNewFunc,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  movingSignal,
  opsSignal,
  resumeSignal,
  routedToQuery,
  sendUpdate,
  stateQuery,
  wakeSignal,
} from '../../protocol/messages';
import { resumeSchema, sendRequestSchema } from '../../protocol/message-schemas';
import { AGENT_WORKFLOW_TASK_TIMEOUT, type AgentStateView } from '../../protocol/agent';
import { newBuildCurrent, onCurrentBuild } from '../author/build-moves';
import { setCheckedSignal, setCheckedUpdate } from '../author/checked-handlers';
import { type AgentWorkflowInput, AgentRuntime } from './runtime';
import { Dispatcher, OpsIntake } from './dispatcher';
import { runPollLoop } from './poller';
import {
  SendIntake,
  runOutbox,
  refuseWhileMoving,
  sendRequestProblem,
  runMarkReadLoop,
  runTypingLoop,
} from './sender';
import { Supervisor } from './lifecycle';
import { continueAsNewAfterEvents } from './tuning';

/**
 * The agent workflow, one per agent (`agent:<agentKey>`): wiring only. It builds its parts from
 * the carried state (`AgentRuntime`), runs the poll, outbox, typing and mark-read loops, sets the
 * signals, update and query of the protocol onto the parts, and continues as new before its
 * history grows large or onto a build made current since (a deploy), carrying everything in flight. Each rule lives in its part; see
 * `workflows/README.md`.
 */

export async function agentWorkflow(input: AgentWorkflowInput): Promise<void> {
  const continueAfter = continueAsNewAfterEvents(input.tuning);
  const supervisor = new Supervisor();
  const rt = new AgentRuntime(input, supervisor);
  const dispatcher = new Dispatcher(rt);
  const sends = new SendIntake(rt);
  const ops = new OpsIntake(rt, dispatcher, sends, rt.receipts);
  dispatcher.onHandlerResult((workflowId, result) => ops.result(workflowId, result));
  registerHandlers(rt, ops, sends);

  // (Started in this order: the order of their first commands is part of recorded histories.)
  void supervisor.own(runOutbox(rt));
  const pollDone = supervisor.own(runPollLoop(rt, dispatcher));
  const typingDone = supervisor.own(runTypingLoop(rt));
  const markReadsDone = supervisor.own(runMarkReadLoop(rt));

  // Continues as new before its history grows long, and onto the current build once another is
  // current (a deploy: build-moves.ts).
  await supervisor.watch(
    condition(
      () =>
        workflowInfo().continueAsNewSuggested ||
        workflowInfo().historyLength >= continueAfter ||
        newBuildCurrent(),
    ),
  );
  rt.lifecycle.drain();
  await supervisor.watch(Promise.all([typingDone, markReadsDone]));
  await handOver(rt, dispatcher, pollDone);
  // (The task timeout is set again: a run started before it was shortened moves to it here.)
  await makeContinueAsNewFunc<typeof agentWorkflow>({
    workflowTaskTimeout: AGENT_WORKFLOW_TASK_TIMEOUT,
    ...onCurrentBuild(workflowInfo().currentDeploymentVersion),
  })({
    ...input,
    carried: rt.collect(),
  });
}

/**
 * Waits until nothing is in flight (`Lifecycle.idle`) and polling has ended, then tells the
 * handlers that might still complete into this run to hand over by signal. The open poll ends
 * before the next run's first poll starts: two at once would cost the older a 409 (a concurrent
 * poll). Its worker learns of the cancellation by its heartbeat.
 */
async function handOver(rt: AgentRuntime, dispatcher: Dispatcher, polling: Promise<void>): Promise<void> {
  const { lifecycle, supervisor } = rt;
  let pollDone = polling;
  for (;;) {
    await supervisor.watch(condition(() => lifecycle.idle()));
    if (rt.poll.isOpen) {
      lifecycle.endPolling();
      rt.poll.cancel();
      await supervisor.watch(pollDone);
    }
    await supervisor.watch(moveHandlers(rt));
    // (A handler started meanwhile is young again: it is told too, on the next round.)
    if (lifecycle.idle() && rt.children.size === 0) break;
    // Work came meanwhile (an update caller, a handler's result): poll again, and drain that first.
    lifecycle.reopenPolling();
    pollDone = supervisor.own(runPollLoop(rt, dispatcher));
  }
  rt.poll.cancel();
}

/**
 * Tells each handler of this run that may still complete into it that the run is moving on
 * (`amsflow.moving`): once the signal is in its history it cannot complete without seeing it, and
 * hands its operations over by signal to the next run. A handler that had completed already
 * (the signal fails) has its result on the way: wait for it.
 */
async function moveHandlers(rt: AgentRuntime): Promise<void> {
  const ids = rt.children.youngIds();
  await Promise.all(
    ids.map(async (workflowId) => {
      try {
        await getExternalWorkflowHandle(workflowId).signal(movingSignal);
        rt.children.gone(workflowId);
      } catch {
        await condition(() => !rt.children.has(workflowId));
      }
    }),
  );
}

/** The protocol's handlers, each onto the part that owns what it changes. */
function registerHandlers(rt: AgentRuntime, ops: OpsIntake, sends: SendIntake): void {
  setCheckedUpdate(
    sendUpdate,
    sendRequestSchema,
    (req) => sends.update(req),
    sendRequestProblem,
    () => refuseWhileMoving(rt.lifecycle.draining),
  );
  setHandler(opsSignal, (arg: unknown) => ops.signal(arg));
  setHandler(wakeSignal, () => rt.lifecycle.wake());
  setCheckedSignal(resumeSignal, resumeSchema, () => rt.resume());
  setHandler(stateQuery, () => stateView(rt));
  // (Anything but a string finds nothing: a query's argument comes from any client.)
  setHandler(routedToQuery, (messageId: unknown) =>
    typeof messageId === 'string' ? rt.router.routedTo(messageId) : null,
  );
}

/** The answer to the agent's `state` query (`amsflow state`): read from the parts, changes nothing. */

export function stateView(rt: AgentRuntime): AgentStateView {
  const { refusal, lastError } = rt.status;
  const { endedAt, dueBy } = rt.deadline;
  return {
    agentKey: rt.agentKey,
    generation: rt.generation,
    offset: rt.cursor.offset,
    recipientKnown: rt.cursor.recipient !== undefined,
    queueLength: rt.outbox.length,
    sending: rt.outbox.sending?.requestId,
    waiters: rt.router.counts,
    pendingMarkRead: rt.statuses.pendingMarkRead,
    dropped: { markRead: rt.statuses.dropped, receipts: rt.ledger.dropped, flood: rt.inbound.dropped },
    historyLength: workflowInfo().historyLength,
    draining: rt.lifecycle.draining,
    lastError,
    failedSends: rt.status.failedSends,
    counters: rt.tally.snapshot(),
    status: refusal?.status ?? 'running',
    ...(refusal ? { refusal } : {}),
    poll: {
      ...(endedAt === undefined ? {} : { lastEndedAt: new Date(endedAt).toISOString() }),
      ...(dueBy === undefined || rt.lifecycle.draining ? {} : { dueBy: new Date(dueBy).toISOString() }),
    },
  };
}
