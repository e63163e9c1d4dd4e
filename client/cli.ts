#!/usr/bin/env node
/**
 * The `amsflow` command line (`npm run amsflow -- <command>`):
 *   amsflow ensure [--agent <key>]                    start the agent's workflow unless it runs
 *   amsflow send <text> [--agent <key>] [--reply-to <message id>] [--request-id <id>] [--retry-ambiguous]
 *   amsflow state [--agent <key>]                     the agent's state as JSON
 *   amsflow agent resume [<key>]                      resume an agent stopped by a refused token (client/agent-resume.ts)
 *   amsflow conversations list [--agent <key>] [--all] [--json]
 *                                                     the agent's running conversations: name, step, waiting since
 *   amsflow conversations show <workflow id>          a conversation's state and status as JSON
 *   amsflow conversations cancel <workflow id> [--reason <text>]
 *                                                     cancel a conversation from outside (it tells the human)
 *   amsflow approval request --question <text> [--agent <key>] [--timeout 10m] [--remind-after 5m] [--id <id>] [--wait] [--json]
 *                                                     ask the human to approve; idempotent by --id
 *   amsflow approval list [--agent <key>] [--json]    the agent's pending approvals
 *   amsflow approval cancel <id> [--agent <key>] [--reason <text>] [--json]
 *                                                     cancel a pending approval (its decision: cancelled)
 *   amsflow codec-server [--port 8888] [--host 127.0.0.1] [--origin <UI origin>]...
 *                                                     decrypt payloads for the Temporal UI (until Ctrl-C)
 * `conversations list` shows the agent's message handlers (ids `agent:<key>:msg:`), a handler
 * that gives no state as "no conversation state"; `--all` adds every other running workflow on
 * the task queue whose conversation is the agent's (workflows that called `useAgent`).
 * Connects to TEMPORAL_ADDRESS (default 127.0.0.1:7233), namespace TEMPORAL_NAMESPACE, task
 * queue AMSFLOW_TASK_QUEUE (default amsflow); the agent key defaults to AMSFLOW_AGENT or "default".
 * With AMSFLOW_ENCRYPTION_KEYS set, payloads are encrypted and decrypted with those keys (as the
 * worker does); `codec-server` needs them and contacts no Temporal server.
 * Durations are a whole number and one unit: `1500ms`, `15s`, `10m`, `2h`, `3d`.
 * `approval request` times out after 10m unless `--timeout` says otherwise; without `--wait` it
 * prints `{"id","workflowId"}`, with `--wait` it waits for the decision and prints it, with
 * `--json` as one line `{"id","decision","by","at"}` (`by` null for an expiry). `approval cancel`
 * waits up to 10 s for the decision and prints it the same way.
 * Exit codes: 0 done (for `approval request --wait`: approved), 1 failed (e.g. no such
 * conversation or approval, an approval already decided), 2 bad usage (nothing was contacted),
 * 3 `approval request --wait` reached a decision other than approved (rejected, expired,
 * cancelled), so that `amsflow approval request --wait ... && deploy` deploys only when approved.
 */
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { agentCommand } from './agent-resume';
import { ensureAgent, getAgentState, sendThroughOutbox } from './agents';
import {
  cancelConversation,
  ConversationError,
  listConversations,
  showConversation,
  type ConversationListing,
} from './conversations';
import {
  approvalInput,
  ApprovalError,
  ApprovalRequestError,
  approvalIdProblem,
  getApprovalHandle,
  listApprovals,
  requestApproval,
  type ApprovalListing,
} from './approvals';
import { runCodecServer, codecServerProblem, CODEC_SERVER_OPTIONS } from './codec-server';
import { textMessage } from '../workflows/builders';
import { dataConverterFromEnv, EncryptionKeysError } from '../worker/codec';
import type { ApprovalDecision, ApprovalInput } from '../workflows/approval-types';
import { agentKeyProblem, agentWorkflowId } from '../protocol/ids';
import { DEFAULT_TASK_QUEUE } from '../protocol/queues';

const USAGE = `usage:
  amsflow ensure [--agent <key>]
  amsflow send <text> [--agent <key>] [--reply-to <message id>] [--request-id <id>] [--retry-ambiguous]
  amsflow state [--agent <key>]
  amsflow agent resume [<key>]
  amsflow conversations list [--agent <key>] [--all] [--json]
  amsflow conversations show <workflow id>
  amsflow conversations cancel <workflow id> [--reason <text>]
  amsflow approval request --question <text> [--agent <key>] [--timeout 10m] [--remind-after 5m] [--id <id>] [--wait] [--json]
  amsflow approval list [--agent <key>] [--json]
  amsflow approval cancel <id> [--agent <key>] [--reason <text>] [--json]
  amsflow codec-server [--port 8888] [--host 127.0.0.1] [--origin <Temporal UI origin>]...
durations: 1500ms, 15s, 10m, 2h, 3d`;

/** Options of each `conversations` subcommand, and how many positionals (the workflow id) it takes. */
const CONVERSATION_COMMANDS: Record<string, { options: string[]; positionals: number }> = {
  list: { options: ['agent', 'all', 'json'], positionals: 0 },
  show: { options: ['json'], positionals: 1 },
  cancel: { options: ['reason', 'json'], positionals: 1 },
};

/** Options only the `conversations` and `approval` subcommands take. */
const SUBCOMMAND_ONLY_OPTIONS = [
  'all',
  'json',
  'reason',
  'question',
  'timeout',
  'remind-after',
  'id',
  'wait',
  ...CODEC_SERVER_OPTIONS,
];

/** Options of each `approval` subcommand, and how many positionals (the request id) it takes. */
const APPROVAL_COMMANDS: Record<string, { options: string[]; positionals: number }> = {
  request: {
    options: ['agent', 'question', 'timeout', 'remind-after', 'id', 'wait', 'json'],
    positionals: 0,
  },
  list: { options: ['agent', 'json'], positionals: 0 },
  cancel: { options: ['agent', 'reason', 'json'], positionals: 1 },
};

/** `approval request`'s timeout without `--timeout`. */
export const DEFAULT_APPROVAL_TIMEOUT = '10m';

/** How long `approval cancel` waits for the cancelled decision before it reports only the signal. */
const CANCEL_WAIT_MS = 10_000;

/** Exit code of `approval request --wait` for a decision other than approved. */
const NOT_APPROVED = 3;

/** Why `approval <rest>` is malformed, or undefined. */
function approvalProblem(rest: string[], given: string[], agentKey: string): string | undefined {
  const [sub, ...args] = rest;
  if (!sub) return 'approval needs a subcommand: request, list or cancel';
  const spec = APPROVAL_COMMANDS[sub];
  if (!spec) return `unknown approval subcommand "${sub}"`;
  if (args.length < spec.positionals) return `approval ${sub} needs the request id`;
  if (args.length > spec.positionals)
    return `approval ${sub}: unexpected argument "${args[spec.positionals]}"`;
  const extra = given.find((o) => o !== 'help' && !spec.options.includes(o));
  if (extra) return `approval ${sub} does not take --${extra}`;
  if (sub === 'request' && !given.includes('question')) return 'approval request needs --question <text>';
  return agentKeyProblem(agentKey) ?? (sub === 'cancel' ? approvalIdProblem(args[0]) : undefined);
}

/** The decision as `approval request --wait --json` prints it: always the four keys, `by` null when nobody decided. */
function decisionJson(d: ApprovalDecision): string {
  return JSON.stringify({ id: d.id, decision: d.decision, by: d.by ?? null, at: d.at });
}

/** The decision for a person: `approval <id>: approved by user:1 at <iso>`. */
function decisionLine(d: ApprovalDecision): string {
  return `approval ${d.id}: ${d.decision}${d.by ? ` by ${d.by}` : ''} at ${d.at}`;
}

/** One line per pending approval for `approval list` without `--json`. */
function approvalLine(l: ApprovalListing): string {
  if (!l.view) return `${l.id}  no approval state (${l.noState ?? 'unknown'})`;
  const v = l.view;
  const question = v.question.length > 80 ? `${v.question.slice(0, 79)}…` : v.question;
  return [l.id, v.status, `asked ${v.requestedAt}`, `expires ${v.expiresAt}`, JSON.stringify(question)].join(
    '  ',
  );
}

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
  if (argv[0] === 'agent') return agentCommand(argv.slice(1), env);
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
        question: { type: 'string' },
        timeout: { type: 'string' },
        'remind-after': { type: 'string' },
        id: { type: 'string' },
        wait: { type: 'boolean' },
        port: { type: 'string' },
        host: { type: 'string' },
        origin: { type: 'string', multiple: true },
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
  if (!['ensure', 'send', 'state', 'conversations', 'approval', 'codec-server'].includes(command)) {
    console.error(`unknown command "${command}"\n${USAGE}`);
    return 2;
  }
  const given = Object.keys(parsed.values);
  const problem =
    command === 'conversations'
      ? (conversationsProblem(rest, given) ?? (rest[0] === 'list' ? agentKeyProblem(agentKey) : undefined))
      : command === 'approval'
        ? approvalProblem(rest, given, agentKey)
        : command === 'codec-server'
          ? codecServerProblem(rest, given, parsed.values.port)
          : (given
              .filter((o) => SUBCOMMAND_ONLY_OPTIONS.includes(o))
              .map((o) => `${command} does not take --${o}`)[0] ?? agentKeyProblem(agentKey));
  if (problem) {
    console.error(`${problem}\n${USAGE}`);
    return 2;
  }
  // Checked in full before connecting: a malformed request contacts nothing.
  let approvalRequest: ApprovalInput | undefined;
  if (command === 'approval' && rest[0] === 'request') {
    try {
      approvalRequest = approvalInput({
        agentKey,
        question: parsed.values.question!,
        timeout: parsed.values.timeout ?? DEFAULT_APPROVAL_TIMEOUT,
        remindAfter: parsed.values['remind-after'],
        id: parsed.values.id,
      });
    } catch (err) {
      if (!(err instanceof ApprovalRequestError)) throw err;
      console.error(`${err.message}\n${USAGE}`);
      return 2;
    }
  }
  if (command === 'send' && rest.length === 0) {
    console.error(`send needs the text to send\n${USAGE}`);
    return 2;
  }
  let dataConverter: DataConverter | undefined;
  try {
    dataConverter = dataConverterFromEnv(env);
  } catch (err) {
    if (!(err instanceof EncryptionKeysError)) throw err;
    console.error(err.message);
    return 2;
  }
  if (command === 'codec-server') return await runCodecServer(parsed.values, env);
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection, namespace: env.TEMPORAL_NAMESPACE ?? 'default', dataConverter });
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
    if (command === 'approval')
      return await approval(client, rest, agentKey, env, parsed.values, approvalRequest);
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

async function approval(
  client: Client,
  [sub, id]: string[],
  agentKey: string,
  env: NodeJS.ProcessEnv,
  values: { json?: boolean; reason?: string; wait?: boolean },
  input: ApprovalInput | undefined,
): Promise<number> {
  try {
    if (sub === 'list') {
      const listings = await listApprovals(client, { agentKey });
      if (values.json) console.log(JSON.stringify(listings, null, 2));
      else if (listings.length === 0) console.log(`no pending approvals of agent "${agentKey}"`);
      else for (const listing of listings) console.log(approvalLine(listing));
      return 0;
    }
    if (sub === 'request') {
      const handle = await requestApproval(client, {
        agentKey,
        id: input!.id,
        question: input!.question,
        timeout: input!.timeoutMs,
        remindAfter: input!.remindAfterMs,
        taskQueue: env.AMSFLOW_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
      });
      if (!values.wait) {
        console.log(JSON.stringify({ id: handle.id, workflowId: handle.workflowId }));
        return 0;
      }
      const decision = await handle.result();
      console.log(values.json ? decisionJson(decision) : decisionLine(decision));
      return decision.decision === 'approved' ? 0 : NOT_APPROVED;
    }
    const handle = getApprovalHandle(client, agentKey, id);
    await handle.cancel(values.reason);
    const decision = await client
      .withDeadline(Date.now() + CANCEL_WAIT_MS, () => handle.result())
      .catch(() => undefined);
    if (!decision) {
      console.log(JSON.stringify({ id, workflowId: handle.workflowId, cancel: 'signalled' }));
      console.error(`approval ${id}: cancel signalled; it has not ended yet (is the worker running?)`);
      return 0;
    }
    console.log(values.json ? decisionJson(decision) : decisionLine(decision));
    if (decision.decision === 'cancelled') return 0;
    console.error(`approval ${id} was decided before the cancel arrived: ${decision.decision}`);
    return 1;
  } catch (err) {
    if (err instanceof ApprovalError) {
      console.error(err.message);
      if (err.decision) console.log(values.json ? decisionJson(err.decision) : decisionLine(err.decision));
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
