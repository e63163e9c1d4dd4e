#!/usr/bin/env node
/**
 * The `amsflow` command line (`npm run amsflow -- <command>`):
 *   amsflow ensure [--agent <key>]                    start the agent's workflow unless it runs
 *   amsflow send <text> [--agent <key>] [--reply-to <message id>] [--request-id <id>] [--retry-ambiguous]
 *   amsflow state [--agent <key>]                     the agent's state as JSON
 * Connects to TEMPORAL_ADDRESS (default 127.0.0.1:7233), namespace TEMPORAL_NAMESPACE, task
 * queue AMSFLOW_TASK_QUEUE (default amsflow); the agent key defaults to AMSFLOW_AGENT or "default".
 */
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { ensureAgent, getAgentState, sendThroughOutbox } from './agents';
import { textMessage } from '../workflows/builders';
import { agentWorkflowId } from '../protocol/ids';
import { DEFAULT_TASK_QUEUE } from '../protocol/queues';

const USAGE = `usage:
  amsflow ensure [--agent <key>]
  amsflow send <text> [--agent <key>] [--reply-to <message id>] [--request-id <id>] [--retry-ambiguous]
  amsflow state [--agent <key>]`;

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        agent: { type: 'string' },
        'reply-to': { type: 'string' },
        'request-id': { type: 'string' },
        'retry-ambiguous': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const [command, ...rest] = parsed.positionals;
  if (parsed.values.help || !command) {
    console.log(USAGE);
    return parsed.values.help ? 0 : 2;
  }
  const agentKey = parsed.values.agent ?? env.AMSFLOW_AGENT ?? 'default';
  const address = env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
  if (!['ensure', 'send', 'state'].includes(command)) {
    console.error(`unknown command "${command}"\n${USAGE}`);
    return 2;
  }
  if (command === 'send' && rest.length === 0) {
    console.error(`send needs the text to send\n${USAGE}`);
    return 2;
  }
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection, namespace: env.TEMPORAL_NAMESPACE ?? 'default' });
    if (command === 'ensure') {
      const runId = await ensureAgent(client, {
        agentKey,
        taskQueue: env.AMSFLOW_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
      });
      console.log(JSON.stringify({ agentKey, workflowId: agentWorkflowId(agentKey), runId }));
      return 0;
    }
    if (command === 'send') {
      const outcome = await sendThroughOutbox(
        client,
        agentKey,
        textMessage(rest.join(' '), { replyTo: parsed.values['reply-to'] }),
        { requestId: parsed.values['request-id'], retryAmbiguous: parsed.values['retry-ambiguous'] },
      );
      console.log(JSON.stringify(outcome));
      return outcome.ok ? 0 : 1;
    }
    const state = await getAgentState(client, agentKey);
    if (!state) {
      console.error(`agent "${agentKey}" is not running (no workflow ${agentWorkflowId(agentKey)})`);
      return 1;
    }
    console.log(JSON.stringify(state, null, 2));
    return 0;
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
