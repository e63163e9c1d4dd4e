/**
 * The agent workflow: its wiring (the shared context, the three owners of its state, their loops,
 * one-line handlers onto them, continue-as-new) and the answer to its `state` query, asked of the
 * owners.
 */
import { condition, makeContinueAsNewFunc, setHandler, workflowInfo } from '@temporalio/workflow';
import {
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
import { Poller } from './poller';
import { refuseWhileMoving, Sender, sendRequestProblem } from './sender';
import { Supervisor } from './lifecycle';
import { continueAsNewAfterEvents } from './tuning';

/**
 * The agent workflow, one per agent (`agent:<agentKey>`): wiring only. It builds the shared
 * context from the carried state (`AgentRuntime`) and the three owners of the run's state on it
 * (the poller, the dispatcher, the sender), runs their loops (poll, outbox, typing, mark-read),
 * sets the signals, update and query of the protocol onto the owners in one-liners, and continues
 * as new before its history grows large or onto a build made current since (a deploy), carrying
 * everything in flight. Each rule lives in its part; see `workflows/README.md`.
 */

/** The owners of an agent run's state, wired to each other. */
interface Owners {
  poller: Poller;
  dispatcher: Dispatcher;
  sender: Sender;
}

export async function agentWorkflow(input: AgentWorkflowInput): Promise<void> {
  const continueAfter = continueAsNewAfterEvents(input.tuning);
  const supervisor = new Supervisor();
  const rt = new AgentRuntime(input, supervisor);
  const poller = new Poller(rt);
  const sender = new Sender(rt, poller);
  const dispatcher = new Dispatcher(rt, sender, poller);
  // (The sender asks the dispatcher of routing and first-reply turns: it is built after.)
  sender.routesTo(dispatcher);
  const owners = { poller, dispatcher, sender };
  rt.own(owners);
  const ops = new OpsIntake(rt, dispatcher, sender);
  dispatcher.onHandlerResult((workflowId, result) => ops.result(workflowId, result));
  registerHandlers(rt, owners, ops);

  // (Started in this order: the order of their first commands is part of recorded histories.)
  void supervisor.own(sender.sendLoop());
  const pollDone = supervisor.own(poller.run(dispatcher, sender));
  const typingDone = supervisor.own(sender.typingLoop());
  const markReadsDone = supervisor.own(sender.markReadLoop());

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
  await handOver(rt, owners, pollDone);
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
async function handOver(rt: AgentRuntime, owners: Owners, polling: Promise<void>): Promise<void> {
  const { poller, dispatcher, sender } = owners;
  const { lifecycle, supervisor } = rt;
  let pollDone = polling;
  for (;;) {
    await supervisor.watch(condition(() => lifecycle.idle()));
    if (poller.polling) {
      lifecycle.endPolling();
      poller.cancelPoll();
      await supervisor.watch(pollDone);
    }
    await supervisor.watch(dispatcher.moveHandlers());
    // (A handler started meanwhile is young again: it is told too, on the next round.)
    if (lifecycle.idle() && dispatcher.handlersPending === 0) break;
    // Work came meanwhile (an update caller, a handler's result): poll again, and drain that first.
    lifecycle.reopenPolling();
    pollDone = supervisor.own(poller.run(dispatcher, sender));
  }
  poller.cancelPoll();
}

/** The protocol's handlers, each onto the owner of what it changes. */
function registerHandlers(rt: AgentRuntime, owners: Owners, ops: OpsIntake): void {
  const { dispatcher, sender } = owners;
  setCheckedUpdate(
    sendUpdate,
    sendRequestSchema,
    (req) => sender.update(req),
    sendRequestProblem,
    () => refuseWhileMoving(rt.lifecycle.draining),
  );
  setHandler(opsSignal, (arg: unknown) => ops.signal(arg));
  setHandler(wakeSignal, () => rt.lifecycle.wake());
  setCheckedSignal(resumeSignal, resumeSchema, () => rt.resume());
  setHandler(stateQuery, () => stateView(rt, owners));
  // (Anything but a string finds nothing: a query's argument comes from any client.)
  setHandler(routedToQuery, (messageId: unknown) =>
    typeof messageId === 'string' ? dispatcher.routedTo(messageId) : null,
  );
}

/** The answer to the agent's `state` query (`amsflow state`): asked of the owners, changes nothing. */

export function stateView(rt: AgentRuntime, { poller, dispatcher, sender }: Owners): AgentStateView {
  const { refusal, lastError } = rt.status;
  const polls = poller.view;
  const sends = sender.view;
  const routes = dispatcher.view;
  const { endedAt, dueBy } = polls;
  return {
    agentKey: rt.agentKey,
    generation: rt.generation,
    offset: polls.offset,
    recipientKnown: polls.recipientKnown,
    queueLength: sends.queueLength,
    sending: sends.sending,
    waiters: routes.waiters,
    pendingMarkRead: sends.pendingMarkRead,
    dropped: { markRead: sends.markReadDropped, receipts: sends.receiptsDropped, flood: routes.floodDropped },
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
