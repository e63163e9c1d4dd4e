/** `amsflow ensure`, `send` and `state`: the agent's workflow from outside. */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { agentWorkflowId } from '../../protocol/agent';
import {
  agentNotRunningMessage,
  agentRunning,
  ensureAgent,
  getAgentState,
  sendThroughOutbox,
} from '../agents';
import { agentOption, taskQueue } from './options';
import { queryTimeoutMs } from './temporal';
import { command, CommandFailure } from './spec';
import { cliTextMessage } from './text-message';

/** How long `state` waits for the agent's answer (only a worker answers a query). */

/** After this long without an outcome, `send` says what it waits for. */
const SEND_NOTE_AFTER_MS = 10_000;

function waitingNote(agentKey: string, queue: string | undefined): string {
  return (
    `amsflow send: still waiting for agent "${agentKey}" to send (is a worker running on task queue ` +
    `"${queue ?? '?'}"?); it is sent once one runs the agent. Ctrl-C stops waiting, not the send.`
  );
}

/**
 * True when the query ran out of time: gRPC says so, or the deadline has passed and the call was
 * cancelled (the server ends a call at the deadline it was given with a stream reset, which the
 * client reads as CANCELLED when that reset arrives before its own timer fires).
 */
export function ranOutOfTime(code: unknown, deadline: number, now = Date.now()): boolean {
  return code === GrpcStatus.DEADLINE_EXCEEDED || (code === GrpcStatus.CANCELLED && now >= deadline);
}

/** Why the state query of a running agent failed, for an operator. */
async function unanswered(
  client: Client,
  agentKey: string,
  err: unknown,
  deadline: number,
  waitedMs: number,
): Promise<string> {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  if (!ranOutOfTime((cause as { code?: unknown }).code, deadline))
    return `agent "${agentKey}": the state query failed: ${cause instanceof Error ? cause.message : String(cause)}`;
  const { taskQueue } = await agentRunning(client, agentKey).catch(() => ({ taskQueue: undefined }));
  return (
    `agent "${agentKey}" did not answer the state query within ${waitedMs / 1000} s: ` +
    `is a worker running on task queue "${taskQueue ?? '?'}"?`
  );
}

export const ensureCommand = command({
  name: 'ensure',
  summary: "start the agent's workflow unless it runs",
  description: [
    'Prints {"agentKey","workflowId","runId"}. It starts the agent with the defaults (spec limits,',
    'default tuning, no bot config): prefer letting the workers start their agents.',
  ].join('\n'),
  options: { agent: agentOption },
  async run({ values, env, temporal }) {
    const agentKey = values.agent!;
    const runId = await ensureAgent(await temporal(), { agentKey, taskQueue: taskQueue(env) });
    console.log(JSON.stringify({ agentKey, workflowId: agentWorkflowId(agentKey), runId }));
    return 0;
  },
});

export const sendCommand = command({
  name: 'send',
  summary: "send a text through the agent's outbox, out of band",
  description: [
    'Waits for the outcome and prints it as JSON: {"ok":true,"messageId",...} or {"ok":false,"type",...}.',
    'Exit 0 sent, 1 not sent (the failure says why) or the agent is not running.',
  ].join('\n'),
  positionals: [
    {
      name: 'text',
      what: 'the text to send',
      description: 'the text (several words are joined)',
      variadic: true,
    },
  ],
  options: {
    agent: agentOption,
    'reply-to': { type: 'string', value: '<message id>', description: 'send it as a reply to this message' },
    'request-id': {
      type: 'string',
      value: '<id>',
      description: 'idempotency key: the outbox takes a request id once (default: a new one)',
    },
    'retry-ambiguous': {
      type: 'boolean',
      description: 're-send after an ambiguous outcome (the human may get it twice)',
    },
  },
  async run({ values, args, temporal }) {
    const client = await temporal();
    const agentKey = values.agent!;
    const agent = await agentRunning(client, agentKey);
    if (agent.problem) throw new CommandFailure(agent.problem);
    let outcome;
    // A send waits for the outcome, however long the outbox takes; without a worker that is
    // forever, so say what it is waiting for (it is sent once a worker runs the agent).
    const note = setTimeout(() => console.error(waitingNote(agentKey, agent.taskQueue)), SEND_NOTE_AFTER_MS);
    try {
      outcome = await sendThroughOutbox(
        client,
        agentKey,
        cliTextMessage(args.join(' '), values['reply-to']),
        { requestId: values['request-id'], retryAmbiguous: values['retry-ambiguous'] },
      );
    } catch (err) {
      // It ended between the check and the send.
      if (err instanceof WorkflowNotFoundError)
        throw new CommandFailure(
          (await agentRunning(client, agentKey)).problem ?? agentNotRunningMessage(agentKey),
        );
      throw err;
    } finally {
      clearTimeout(note);
    }
    console.log(JSON.stringify(outcome));
    return outcome.ok ? 0 : 1;
  },
});

export const stateCommand = command({
  name: 'state',
  summary: "the agent's state as JSON: offset, queue, waiters, counters, last error",
  description:
    'Exit 1 when the agent has no workflow, or no worker answers within AMSFLOW_QUERY_TIMEOUT (10 s).',
  options: { agent: agentOption },
  async run({ values, env, temporal }) {
    const agentKey = values.agent!;
    const client = await temporal();
    const waitMs = queryTimeoutMs(env);
    const deadline = Date.now() + waitMs;
    let state;
    try {
      state = await client.withDeadline(deadline, () => getAgentState(client, agentKey));
    } catch (err) {
      throw new CommandFailure(await unanswered(client, agentKey, err, deadline, waitMs));
    }
    if (!state) throw new CommandFailure(agentNotRunningMessage(agentKey));
    console.log(JSON.stringify(state, null, 2));
    return 0;
  },
});
