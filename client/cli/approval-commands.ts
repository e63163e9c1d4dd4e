/** `amsflow approval request|list|cancel`: approvals asked from outside. */
import type { Client } from '@temporalio/client';
import type { ApprovalDecision } from '../../protocol/approvals';
import { agentRunning } from '../agents';
import { getApprovalHandle, requestApproval } from '../approval-handle';
import { listApprovals } from '../approval-listing';
import {
  ApprovalError,
  approvalIdProblem,
  approvalInput,
  ApprovalRequestError,
  MAX_QUESTION_CHARS,
  type ApprovalListing,
} from '../approvals';
import { agentOption, jsonOption, taskQueue } from './options';
import { command, CommandFailure, type GroupSpec, type Values } from './spec';
import { queryTimeoutMs } from './temporal';

/** `approval request`'s timeout without `--timeout`. */
export const DEFAULT_APPROVAL_TIMEOUT = '10m';

/** How long `approval cancel` waits for the cancelled decision before it reports only the signal. */
/** Exit code of `approval request --wait` for a decision other than approved. */
export const NOT_APPROVED = 3;

/** The decision as `--json` prints it: always the four keys, `by` null when nobody decided. */
function decisionJson(d: ApprovalDecision): string {
  return JSON.stringify({
    id: d.id,
    decision: d.decision,
    by: d.by ?? null,
    messageId: d.messageId ?? null,
    at: d.at,
  });
}

/** The decision for a person: `approval <id>: approved by user:1 at <iso>`. */
function decisionLine(d: ApprovalDecision): string {
  return `approval ${d.id}: ${d.decision}${d.by ? ` by ${d.by}` : ''} at ${d.at}`;
}

/** One line per pending approval for `approval list` without `--json`. */
export function approvalLine(l: ApprovalListing): string {
  if (!l.view) return `${l.id}  no approval state (${l.noState ?? 'unknown'})`;
  const v = l.view;
  const question = v.question.length > 80 ? `${v.question.slice(0, 79)}…` : v.question;
  return [l.id, v.status, `asked ${v.requestedAt}`, `expires ${v.expiresAt}`, JSON.stringify(question)].join(
    '  ',
  );
}

/** Runs `fn`; an {@link ApprovalError} fails the command, printing the decision it carries. */
async function reported(json: boolean | undefined, fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof ApprovalError)) throw err;
    if (err.decision) console.log(json ? decisionJson(err.decision) : decisionLine(err.decision));
    throw new CommandFailure(err.message);
  }
}

const requestOptions = {
  question: {
    type: 'string',
    value: '<text>',
    description: `what the human approves, as they read it in the chat (at most ${MAX_QUESTION_CHARS} characters)`,
    required: true,
  },
  agent: agentOption,
  timeout: {
    type: 'string',
    value: DEFAULT_APPROVAL_TIMEOUT,
    description: 'how long the human has to answer; after it the decision is expired',
    default: DEFAULT_APPROVAL_TIMEOUT,
  },
  'remind-after': {
    type: 'string',
    value: '5m',
    description: 'remind the human after this long without an answer (shorter than the timeout)',
  },
  id: { type: 'string', value: '<id>', description: 'the request id: requests with one id are one request' },
  wait: { type: 'boolean', description: 'wait for the decision and print it (exit 3 unless approved)' },
  json: {
    ...jsonOption,
    description: 'with --wait: print {"id","decision","by","messageId","at"} on one line',
  },
} as const;

/** The approval workflow's input for the command line; throws {@link ApprovalRequestError}. */
function inputOf(values: Values<typeof requestOptions>) {
  return approvalInput({
    agentKey: values.agent!,
    question: values.question!,
    timeout: values.timeout!,
    remindAfter: values['remind-after'],
    id: values.id,
  });
}

const request = command({
  name: 'request',
  summary: 'ask the human to approve; idempotent by --id',
  description: [
    'Starts approval:<agent>:<id>: the agent asks in the chat; the human answers yes or no (or 👍/👎).',
    'The agent must be running: otherwise it fails before anything starts. Requesting an id again,',
    'pending or decided, is the same request. Without --wait it prints {"id","workflowId"}.',
    'Exit codes: 0 requested (with --wait: approved), 3 decided otherwise (rejected, expired,',
    'cancelled), 1 failed, 2 bad usage; so `amsflow approval request --wait ... && deploy` deploys',
    'only when approved.',
  ].join('\n'),
  options: requestOptions,
  check(input) {
    try {
      inputOf(input.values);
      return undefined;
    } catch (err) {
      if (err instanceof ApprovalRequestError) return err.message;
      throw err;
    }
  },
  run: ({ values, env, temporal }) =>
    reported(values.json, async () => {
      const client = await temporal();
      const input = inputOf(values);
      const agent = await agentRunning(client, input.agentKey);
      if (agent.problem) throw new CommandFailure(agent.problem);
      const handle = await requestApproval(client, {
        agentKey: input.agentKey,
        id: input.id,
        question: input.question,
        timeout: input.timeoutMs,
        remindAfter: input.remindAfterMs,
        taskQueue: taskQueue(env),
      });
      if (!values.wait) {
        console.log(JSON.stringify({ id: handle.id, workflowId: handle.workflowId }));
        return 0;
      }
      const decision = await handle.result();
      console.log(values.json ? decisionJson(decision) : decisionLine(decision));
      return decision.decision === 'approved' ? 0 : NOT_APPROVED;
    }),
});

const list = command({
  name: 'list',
  summary: "the agent's pending approvals",
  description: 'An empty list is not an error.',
  options: { agent: agentOption, json: jsonOption },
  async run({ values, env, temporal }) {
    const agentKey = values.agent!;
    const listings = await listApprovals(await temporal(), { agentKey, queryTimeoutMs: queryTimeoutMs(env) });
    if (values.json) console.log(JSON.stringify(listings, null, 2));
    else if (listings.length === 0) console.log(`no pending approvals of agent "${agentKey}"`);
    else for (const listing of listings) console.log(approvalLine(listing));
    return 0;
  },
});

const cancel = command({
  name: 'cancel',
  summary: 'cancel a pending approval (its decision: cancelled)',
  description: [
    'Waits up to AMSFLOW_QUERY_TIMEOUT (10 s) for the cancelled decision and prints it as',
    '`request --wait` does. Exit 1 when there is no such approval, it was decided before the cancel,',
    'or it has not ended within that time',
    '(the cancel stays recorded: it takes effect once a worker runs the approval).',
  ].join('\n'),
  positionals: [{ name: 'id', what: 'the request id', description: 'the request id' }],
  options: {
    agent: agentOption,
    reason: { type: 'string', value: '<text>', description: 'why (told to the human)' },
    json: { ...jsonOption, description: 'print the decision as {"id","decision","by","messageId","at"}' },
  },
  check: ({ args }) => approvalIdProblem(args[0]),
  run: ({ values, args: [id], env, temporal }) =>
    reported(values.json, async () =>
      cancelAndWait(await temporal(), values.agent!, id, values, queryTimeoutMs(env)),
    ),
});

async function cancelAndWait(
  client: Client,
  agentKey: string,
  id: string,
  values: { reason?: string; json?: boolean },
  waitMs: number,
): Promise<number> {
  const handle = getApprovalHandle(client, agentKey, id);
  await handle.cancel(values.reason);
  const decision = await client
    .withDeadline(Date.now() + waitMs, () => handle.result())
    .catch(() => undefined);
  if (!decision) {
    console.log(JSON.stringify({ id, workflowId: handle.workflowId, cancel: 'signalled' }));
    throw new CommandFailure(
      `approval ${id}: cancel signalled, but it has not ended within ${waitMs / 1000} s (is the worker running?)`,
    );
  }
  console.log(values.json ? decisionJson(decision) : decisionLine(decision));
  if (decision.decision === 'cancelled') return 0;
  throw new CommandFailure(`approval ${id} was decided before the cancel arrived: ${decision.decision}`);
}

export const approvalGroup: GroupSpec = {
  name: 'approval',
  summary: 'approvals asked from outside: request one, list the pending, cancel one',
  commands: [request, list, cancel],
};
