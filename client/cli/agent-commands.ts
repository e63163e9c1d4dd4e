/** `amsflow ensure`, `send` and `state`: the agent's workflow from outside. */
import { WorkflowNotFoundError } from '@temporalio/client';
import { agentWorkflowId } from '../../protocol/ids';
import { textMessage } from '../../workflows/builders';
import {
  agentNotRunning,
  agentNotRunningMessage,
  ensureAgent,
  getAgentState,
  sendThroughOutbox,
} from '../agents';
import { agentOption, taskQueue } from './options';
import { command, CommandFailure } from './spec';

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
    const notRunning = await agentNotRunning(client, agentKey);
    if (notRunning) throw new CommandFailure(notRunning);
    let outcome;
    try {
      outcome = await sendThroughOutbox(
        client,
        agentKey,
        textMessage(args.join(' '), { replyTo: values['reply-to'] }),
        { requestId: values['request-id'], retryAmbiguous: values['retry-ambiguous'] },
      );
    } catch (err) {
      // It ended between the check and the send.
      if (err instanceof WorkflowNotFoundError)
        throw new CommandFailure(
          (await agentNotRunning(client, agentKey)) ?? agentNotRunningMessage(agentKey),
        );
      throw err;
    }
    console.log(JSON.stringify(outcome));
    return outcome.ok ? 0 : 1;
  },
});

export const stateCommand = command({
  name: 'state',
  summary: "the agent's state as JSON: offset, queue, waiters, counters, last error",
  description: 'Exit 1 when the agent has no workflow.',
  options: { agent: agentOption },
  async run({ values, temporal }) {
    const agentKey = values.agent!;
    const state = await getAgentState(await temporal(), agentKey);
    if (!state) throw new CommandFailure(agentNotRunningMessage(agentKey));
    console.log(JSON.stringify(state, null, 2));
    return 0;
  },
});
