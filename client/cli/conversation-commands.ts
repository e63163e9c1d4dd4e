/** `amsflow conversations list|show|cancel|forget`: the agent's conversations from outside. */
import {
  cancelConversation,
  ConversationError,
  listConversations,
  showConversation,
  type ConversationListing,
} from '../conversations';
import { forgetMemory } from '../memory';
import { agentOption, jsonOption, taskQueue } from './options';
import { command, CommandFailure, type CommandInput, type GroupSpec, type PositionalSpec } from './spec';
import { queryTimeoutMs } from './temporal';

const workflowIdArgument: PositionalSpec = {
  name: 'workflow id',
  what: 'the workflow id',
  description: "the conversation's workflow id (as `conversations list` prints it)",
};

const alwaysJson = { ...jsonOption, description: 'accepted for symmetry: the output is JSON anyway' };

/** One line per conversation for `conversations list` without `--json`. */
export function listingLine(l: ConversationListing): string {
  if (!l.conversation) return `${l.workflowId}  no conversation state (${l.noState ?? 'unknown'})`;
  const c = l.conversation;
  const parts = [l.workflowId];
  if (c.name !== undefined) parts.push(`name: ${c.name}`);
  if (c.step !== undefined) parts.push(`step: ${JSON.stringify(c.step)}`);
  parts.push(c.waiting ? `waiting since ${c.waitingSince ?? '?'}` : 'not waiting');
  if (c.cancelled) parts.push(`cancelled (${c.cancelled})`);
  return parts.join('  ');
}

/** A blank workflow id would name no workflow: refused before anything is contacted. */
function blankId(path: string) {
  return ({ args }: CommandInput) =>
    args[0].trim() === '' ? `${path}: the workflow id is empty` : undefined;
}

/** Runs `fn`; a {@link ConversationError} (no such workflow, not a conversation, ended...) fails the command. */
async function reported(fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ConversationError) throw new CommandFailure(err.message);
    throw err;
  }
}

const list = command({
  name: 'list',
  summary: 'the running conversations of the agent: name, step, waiting since',
  description: [
    "The agent's message handlers (ids agent:<key>:msg:); a handler that gives no state is listed as",
    '"no conversation state". --all adds every other running workflow on the task queue whose',
    "conversation is the agent's (workflows that called useAgent). An empty list is not an error.",
  ].join('\n'),
  options: {
    agent: agentOption,
    all: { type: 'boolean', description: 'also the workflows that talk as the agent through useAgent' },
    json: jsonOption,
  },
  async run({ values, env, temporal }) {
    const agentKey = values.agent!;
    const listings = await listConversations(await temporal(), {
      agentKey,
      all: values.all ?? false,
      taskQueue: taskQueue(env),
      queryTimeoutMs: queryTimeoutMs(env),
    });
    if (values.json) console.log(JSON.stringify(listings, null, 2));
    else if (listings.length === 0) console.log(`no running conversations of agent "${agentKey}"`);
    else for (const listing of listings) console.log(listingLine(listing));
    return 0;
  },
});

const show = command({
  name: 'show',
  summary: "a conversation's state and status as JSON",
  description: [
    'Exit 1 when there is no such workflow, it is not a conversation, or it does not answer.',
    "memory:<agent> shows the agent's model memory: the turns its model is shown (`memory`).",
  ].join('\n'),
  positionals: [workflowIdArgument],
  options: { json: alwaysJson },
  check: blankId('conversations show'),
  run: ({ args, env, temporal }) =>
    reported(async () => {
      const details = await showConversation(await temporal(), args[0], {
        queryTimeoutMs: queryTimeoutMs(env),
      });
      console.log(JSON.stringify(details, null, 2));
      return 0;
    }),
});

const cancel = command({
  name: 'cancel',
  summary: 'cancel a conversation from outside (it tells the human)',
  description: [
    'Signals amsflow.cancel: its waits end and it tells the human what was cancelled. Prints the',
    'result as JSON. Exit 1 when there is no such workflow, it is not a conversation, or it has ended.',
  ].join('\n'),
  positionals: [workflowIdArgument],
  options: {
    reason: { type: 'string', value: '<text>', description: 'why (kept in the conversation state)' },
    json: alwaysJson,
  },
  check: blankId('conversations cancel'),
  run: ({ args, values, env, temporal }) =>
    reported(async () => {
      const options = { queryTimeoutMs: queryTimeoutMs(env) };
      console.log(
        JSON.stringify(await cancelConversation(await temporal(), args[0], values.reason, options)),
      );
      return 0;
    }),
});

const forget = command({
  name: 'forget',
  summary: "forget the agent's model memory (the turns its model is shown)",
  description: [
    'Empties memory:<agent> for good; prints {"agentKey","forgotten"} (turns forgotten, 0 when it had none).',
    'Model turns under way keep what they have; the next one starts from nothing.',
  ].join('\n'),
  options: { agent: agentOption, json: alwaysJson },
  async run({ values, temporal }) {
    console.log(JSON.stringify(await forgetMemory(await temporal(), values.agent!)));
    return 0;
  },
});

export const conversationsGroup: GroupSpec = {
  name: 'conversations',
  summary: "the agent's conversations: list them, show one, cancel one, forget the model's memory",
  commands: [list, show, cancel, forget],
};
