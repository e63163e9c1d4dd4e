#!/usr/bin/env node
/**
 * The `amsflow` command line (`npm run amsflow -- <command>`):
 *   amsflow ensure [--agent <key>]                    start the agent's workflow unless it runs
 *   amsflow send <text> [--agent <key>] [--reply-to <message id>] [--request-id <id>] [--retry-ambiguous]
 *   amsflow state [--agent <key>]                     the agent's state as JSON
 *   amsflow conversations list [--agent <key>] [--all] [--json]
 *                                                     the agent's running conversations: name, step, waiting since
 *   amsflow conversations show <workflow id>          a conversation's state and status as JSON
 *   amsflow conversations cancel <workflow id> [--reason <text>]
 *                                                     cancel a conversation from outside (it tells the human)
 * `conversations list` shows the agent's message handlers (ids `agent:<key>:msg:`), a handler
 * that gives no state as "no conversation state"; `--all` adds every other running workflow on
 * the task queue whose conversation is the agent's (workflows that called `useAgent`).
 * Connects to TEMPORAL_ADDRESS (default 127.0.0.1:7233), namespace TEMPORAL_NAMESPACE, task
 * queue AMSFLOW_TASK_QUEUE (default amsflow); the agent key defaults to AMSFLOW_AGENT or "default".
 * Exit codes: 0 done, 1 failed (e.g. no such conversation), 2 bad usage (nothing was contacted).
 */
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { ensureAgent, getAgentState, sendThroughOutbox } from './agents';
import {
  cancelConversation,
  ConversationError,
  listConversations,
  showConversation,
  type ConversationListing,
} from './conversations';
import { textMessage } from '../workflows/builders';
import { agentKeyProblem, agentWorkflowId } from '../protocol/ids';
import { DEFAULT_TASK_QUEUE } from '../protocol/queues';

const USAGE = `usage:
  amsflow ensure [--agent <key>]
  amsflow send <text> [--agent <key>] [--reply-to <message id>] [--request-id <id>] [--retry-ambiguous]
  amsflow state [--agent <key>]
  amsflow conversations list [--agent <key>] [--all] [--json]
  amsflow conversations show <workflow id>
  amsflow conversations cancel <workflow id> [--reason <text>]`;

/** Options of each `conversations` subcommand, and how many positionals (the workflow id) it takes. */
const CONVERSATION_COMMANDS: Record<string, { options: string[]; positionals: number }> = {
  list: { options: ['agent', 'all', 'json'], positionals: 0 },
  show: { options: ['json'], positionals: 1 },
  cancel: { options: ['reason', 'json'], positionals: 1 },
};

/** Options only the `conversations` subcommands take. */
const CONVERSATION_ONLY_OPTIONS = ['all', 'json', 'reason'];

/** Why `conversations <rest>` is malformed, or undefined. */
function conversationsProblem(rest: string[], given: string[]): string | undefined {
  const [sub, ...args] = rest;
  if (!sub) return 'conversations needs a subcommand: list, show or cancel';
  const spec = CONVERSATION_COMMANDS[sub];
  if (!spec) return `unknown conversations subcommand "${sub}"`;
  if (args.length < spec.positionals) return `conversations ${sub} needs the workflow id`;
  if (args.length > spec.positionals)
    return `conversations ${sub}: unexpected argument "${args[spec.positionals]}"`;
  if (spec.positionals === 1 && args[0].trim() === '')
    return `conversations ${sub}: the workflow id is empty`;
  const extra = given.find((o) => o !== 'help' && !spec.options.includes(o));
  if (extra) return `conversations ${sub} does not take --${extra}`;
  return undefined;
}

/** One line per conversation for `conversations list` without `--json`. */
function listingLine(l: ConversationListing): string {
  if (!l.conversation) return `${l.workflowId}  no conversation state (${l.noState ?? 'unknown'})`;
  const c = l.conversation;
  const parts = [l.workflowId];
  if (c.name !== undefined) parts.push(`name: ${c.name}`);
  if (c.step !== undefined) parts.push(`step: ${JSON.stringify(c.step)}`);
  parts.push(c.waiting ? `waiting since ${c.waitingSince ?? '?'}` : 'not waiting');
  if (c.cancelled) parts.push(`cancelled (${c.cancelled})`);
  return parts.join('  ');
}

/** Runs the command line `argv` (without node and the script); resolves to the exit code. */
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
        all: { type: 'boolean' },
        json: { type: 'boolean' },
        reason: { type: 'string' },
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
  if (!['ensure', 'send', 'state', 'conversations'].includes(command)) {
    console.error(`unknown command "${command}"\n${USAGE}`);
    return 2;
  }
  const given = Object.keys(parsed.values);
  const problem =
    command === 'conversations'
      ? (conversationsProblem(rest, given) ?? (rest[0] === 'list' ? agentKeyProblem(agentKey) : undefined))
      : given
          .filter((o) => CONVERSATION_ONLY_OPTIONS.includes(o))
          .map((o) => `${command} does not take --${o}`)[0];
  if (problem) {
    console.error(`${problem}\n${USAGE}`);
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
    if (command === 'conversations') return await conversations(client, rest, agentKey, env, parsed.values);
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

async function conversations(
  client: Client,
  [sub, workflowId]: string[],
  agentKey: string,
  env: NodeJS.ProcessEnv,
  values: { all?: boolean; json?: boolean; reason?: string },
): Promise<number> {
  try {
    if (sub === 'list') {
      const listings = await listConversations(client, {
        agentKey,
        all: values.all ?? false,
        taskQueue: env.AMSFLOW_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
      });
      if (values.json) console.log(JSON.stringify(listings, null, 2));
      else if (listings.length === 0) console.log(`no running conversations of agent "${agentKey}"`);
      else for (const listing of listings) console.log(listingLine(listing));
      return 0;
    }
    if (sub === 'show') {
      console.log(JSON.stringify(await showConversation(client, workflowId), null, 2));
      return 0;
    }
    console.log(JSON.stringify(await cancelConversation(client, workflowId, values.reason)));
    return 0;
  } catch (err) {
    if (err instanceof ConversationError) {
      console.error(err.message);
      return 1;
    }
    throw err;
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
