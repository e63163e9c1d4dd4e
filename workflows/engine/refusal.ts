/**
 * A final refusal: the service refused the agent's token (401, code 190) on a poll or a send, or
 * refused a poll with another 4xx that the spec says not to retry (section 7; 409 and 429 are
 * not final). Retrying cannot help, so the agent stops polling and says why, with the fix,
 * until it is resumed (`amsflow.resume`: `amsflow agent resume <key>`, or a worker that starts
 * with the agent). Meanwhile every send fails at once with `SendUnauthorized` instead of waiting.
 * Pure: each rule has a unit test.
 */
import { ActivityFailureTypes as F } from '../../protocol/failures';
import type { AgentRefusal, SendOutcome } from '../../protocol';
import type { FailureInfo } from './failure';

/** The refusal `info` is, or undefined when the failure does not stop the agent. */
export function refusalOf(
  agentKey: string,
  where: 'poll' | 'send',
  info: FailureInfo,
  at: string,
): AgentRefusal | undefined {
  const status = info.details?.status;
  let kind: AgentRefusal['status'];
  if (where === 'poll' && info.type === F.unauthorized) kind = 'unauthorized';
  else if (where === 'poll' && info.type === F.invalidRequest)
    kind = status === 403 ? 'unauthorized' : 'refused';
  // A 403 or a 400 on a send is about that message or recipient: only a refused token stops the agent.
  else if (where === 'send' && info.type === F.sendUnauthorized && info.details?.tokenRefused)
    kind = 'unauthorized';
  else return undefined;
  return {
    status: kind,
    where,
    ...(status === undefined ? {} : { httpStatus: status }),
    at,
    message: shorten(info.message),
    fix: fixOf(agentKey, kind, where, status),
  };
}

/** What an operator does about it, in one sentence. */
export function fixOf(
  agentKey: string,
  kind: AgentRefusal['status'],
  where: 'poll' | 'send',
  status: number | undefined,
): string {
  const code = status === undefined ? '' : ` (${status})`;
  const resume = `restart the worker, or run \`amsflow agent resume ${agentKey}\``;
  if (kind === 'unauthorized') {
    return `the token of agent ${agentKey} was refused${code}: set a valid token and ${resume}`;
  }
  return (
    `the service refused agent ${agentKey}'s ${where}${code}: check its base URL (it ends in the ` +
    `version prefix, e.g. /agent/v1) and its configuration, then ${resume}`
  );
}

/** The outcome of a send asked for while the agent is stopped by `refusal`: nothing was sent. */
export function refusedOutcome(refusal: AgentRefusal, attempts: number): SendOutcome {
  return {
    ok: false,
    type: 'SendUnauthorized',
    message: `Not sent: agent stopped (${refusal.status}): ${refusal.fix}.`,
    attempts,
  };
}

/** The one log line of a refusal: no token (messages are redacted at the client), no stack. */
export function refusalLine(agentKey: string, refusal: AgentRefusal): string {
  return `agent ${agentKey} stopped polling (${refusal.status}): ${refusal.fix}. The service said: ${refusal.message}`;
}

function shorten(text: string): string {
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
