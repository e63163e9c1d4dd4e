/**
 * The agent workflow, one per agent (`agent:<agentKey>`): wiring only. It builds its parts from
 * the carried state (`AgentRuntime`), runs the poll, outbox and status loops, sets the signals,
 * update and query of the protocol onto the parts, and continues as new before its history
 * grows large, carrying everything in flight. Each rule lives in its part; see
 * `workflows/README.md`.
 */
import { condition, continueAsNew, setHandler, setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
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
import { setCheckedSignal, setCheckedUpdate } from '../author/checked-handlers';
import type { AgentWorkflowInput } from './state-types';
import { Dispatcher } from './dispatcher';
import { runPollLoop } from './poll-loop';
import { AgentRuntime } from './runtime';
import { SendIntake } from './send-intake';
import { runOutbox } from './send-loop';
import { sendRequestProblem } from './send-request';
import { stateView } from './state-view';
import { runStatusLoop } from './status-loop';
import { Supervisor } from './supervisor';

export async function agentWorkflow(input: AgentWorkflowInput): Promise<void> {
  const supervisor = new Supervisor();
  const rt = new AgentRuntime(input, supervisor);
  const dispatcher = new Dispatcher(rt);
  registerHandlers(rt, dispatcher, new SendIntake(rt));

  // (Started in this order: the order of their first commands is part of recorded histories.)
  void supervisor.own(runOutbox(rt));
  const pollDone = supervisor.own(runPollLoop(rt, dispatcher));
  const statusDone = supervisor.own(runStatusLoop(rt));

  await supervisor.watch(
    condition(
      () =>
        workflowInfo().continueAsNewSuggested ||
        workflowInfo().historyLength >= rt.tuning.continueAsNewAfterEvents,
    ),
  );
  rt.lifecycle.drain();
  await supervisor.watch(statusDone);
  await handOver(rt, dispatcher, pollDone);
  await continueAsNew<typeof agentWorkflow>({ ...input, carried: rt.collect() });
}

// Auto-upgrade: the agent lives for months and is amsflow's own code, kept compatible across
// builds by the versions module; its next task after a promotion runs on the new build.
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, agentWorkflow);

/**
 * Waits until nothing is in flight (`Lifecycle.idle`) and polling has ended. The open poll ends
 * before the next run's first poll starts: two at once would cost the older a 409 (a concurrent
 * poll). Its worker learns of the cancellation by its heartbeat.
 */
async function handOver(rt: AgentRuntime, dispatcher: Dispatcher, polling: Promise<void>): Promise<void> {
  const { lifecycle, supervisor } = rt;
  let pollDone = polling;
  for (;;) {
    await supervisor.watch(condition(() => lifecycle.idle()));
    if (!rt.poll.isOpen) break;
    lifecycle.endPolling();
    rt.poll.cancel();
    await supervisor.watch(pollDone);
    if (lifecycle.idle()) break;
    // Work came meanwhile (an update caller): poll again, and drain that first.
    lifecycle.reopenPolling();
    pollDone = supervisor.own(runPollLoop(rt, dispatcher));
  }
  rt.poll.cancel();
}

/** The protocol's handlers, each onto the part that owns what it changes. */
function registerHandlers(rt: AgentRuntime, dispatcher: Dispatcher, intake: SendIntake): void {
  setCheckedUpdate(sendUpdate, sendRequestSchema, (req) => intake.update(req), sendRequestProblem);
  setHandler(sendRequestSignal, (req: unknown) => intake.signal(req));
  setCheckedSignal(waitSignal, waitRequestSchema, (req) => dispatcher.wait(req));
  setHandler(wakeSignal, () => rt.lifecycle.wake());
  setCheckedSignal(releaseSignal, releaseSchema, ({ seq }) => rt.order.release(seq));
  setCheckedSignal(typingSignal, typingSchema, ({ messageId }) => rt.statuses.addTyping(messageId));
  setCheckedSignal(resumeSignal, resumeSchema, () => rt.resume());
  setHandler(stateQuery, () => stateView(rt));
}
