/**
 * The scripted human of one agent in the chaos run: sessions one after another (an echo, a
 * whole signup, a reminder a few seconds ahead, an approval requested from outside and answered
 * yes, a photo), each waiting for the bot's answer before going on, as a person would. Every answer
 * waited for becomes an {@link Expectation}: seen, surfaced (the reply could not be sent and that
 * was reported: AmbiguousSend or SendRejected, to the handler or in the agent's state; not lost)
 * or stuck (not there in time).
 */
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { requestApproval } from '../client/approval-handle';
import { stateQuery, askAgainOnRebuild } from '../protocol/messages';
import type { RunningSimulator } from '../simulator';
import { matches, type Expectation, type SurfacedAs } from './tally';

export type SessionKind = 'echo' | 'signup' | 'reminder' | 'approval' | 'media';

/** Human messages each kind of session writes. */
export const MESSAGES_PER_SESSION: Record<SessionKind, number> = {
  echo: 1,
  signup: 3,
  reminder: 1,
  approval: 1,
  media: 1,
};

/** The bytes of the photo a media session sends (a PNG header is all the service checks). */
const PHOTO = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

export interface Human {
  agent: string;
  sim: RunningSimulator;
  client: Client;
  taskQueue: string;
  stepTimeoutMs: number;
  expectations: Expectation[];
  /** Approval ids and how many decisions each gave (0 or 1). */
  approvals: Record<string, number>;
  repeatedQuestions: number;
  /** The longest a step waited for what it expected, ms (a figure beside the verdict). */
  slowestStepMs: number;
  /** Called for every message the human writes. */
  wrote(): void;
  log?: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The bot's accepted texts of the agent, a late marker (" (late by …)") taken off. */
export async function botTexts(
  sim: RunningSimulator,
  agent: string,
): Promise<{ id: string; text: string; at: number }[]> {
  const t = await sim.control.transcript({ agent });
  return t.sent.map((s) => ({
    id: s.id,
    at: s.realAt,
    text: ((s.body as { text?: { body?: string } }).text?.body ?? '').replace(/ \(late by [^)]*\)$/, ''),
  }));
}

async function say(h: Human, text: string, quote?: string): Promise<string> {
  h.wrote();
  const { id } = await h.sim.control.humanText(text, { agent: h.agent, quote });
  return id;
}

const isSurfaced = (type: string | undefined): type is SurfacedAs =>
  type === 'AmbiguousSend' || type === 'SendRejected';

/**
 * The send failure a reply of the handler of `messageId` was given up with, if it was reported
 * (not lost): `AmbiguousSend` (outcome unknown, not sent again) or `SendRejected` (refused by the
 * service's 429/503 beyond the spec's retries). A plain reply's failure is the agent's to report
 * (its state's `failedSends`, with the handler as requester); a question's fails the handler.
 */
async function surfaced(h: Human, messageId: string): Promise<SurfacedAs | undefined> {
  const workflowId = `agent:${h.agent}:msg:${messageId}`;
  const agent = h.client.workflow.getHandle(`agent:${h.agent}`);
  const state = await askAgainOnRebuild(() => agent.query(stateQuery)).catch(() => undefined);
  const reported = state?.failedSends.find((f) => f.requester === workflowId);
  if (reported && isSurfaced(reported.type)) return reported.type;
  try {
    const handle = h.client.workflow.getHandle(workflowId);
    if ((await handle.describe()).status.name !== 'FAILED') return undefined;
    await handle.result();
    return undefined;
  } catch (err) {
    const cause =
      err instanceof WorkflowFailedError ? (err.cause as { type?: string } | undefined) : undefined;
    return isSurfaced(cause?.type) ? cause.type : undefined;
  }
}

/** The handler of `messageId` as the post-mortem needs it: its status, and its failure if it failed. */
async function handlerState(h: Human, messageId: string): Promise<string> {
  const workflowId = `agent:${h.agent}:msg:${messageId}`;
  try {
    const handle = h.client.workflow.getHandle(workflowId);
    const status = (await handle.describe()).status.name;
    if (status !== 'FAILED') return `${workflowId} ${status}`;
    const failure = await handle.result().then(
      () => 'no failure',
      (err: unknown) => {
        const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
        return cause ? `${cause.name}: ${cause.message}` : String(err);
      },
    );
    return `${workflowId} FAILED (${failure})`;
  } catch (err) {
    return `${workflowId}: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/**
 * Waits for the `nth` bot text matching `e` (1 = the first) and records the expectation; one
 * whose text is not unique in the run (a signup question) is recorded only when not seen.
 */
async function expect(
  h: Human,
  e: Omit<Expectation, 'agent' | 'outcome'>,
  handlerOf?: string,
  nth = 1,
  unique = true,
): Promise<{ id: string } | undefined> {
  const deadline = Date.now() + h.stepTimeoutMs;
  const started = Date.now();
  let lastCheck = 0;
  for (;;) {
    const found = (await botTexts(h.sim, h.agent)).filter((t) => matches(e, t.text));
    if (found.length >= nth) {
      h.slowestStepMs = Math.max(h.slowestStepMs, Date.now() - started);
      if (unique) h.expectations.push({ ...e, agent: h.agent, outcome: 'seen' });
      return found[nth - 1];
    }
    if (handlerOf && Date.now() - started > 3000 && Date.now() - lastCheck > 1000) {
      lastCheck = Date.now();
      const surfacedAs = await surfaced(h, handlerOf);
      if (surfacedAs) {
        h.expectations.push({ ...e, agent: h.agent, outcome: 'surfaced', surfacedAs });
        return undefined;
      }
    }
    if (Date.now() > deadline) {
      const detail = handlerOf ? await handlerState(h, handlerOf) : 'no handler of its own';
      h.log?.(`chaos: stuck waiting for "${e.text}" (${e.kind}) on ${h.agent}: ${detail}`);
      h.expectations.push({ ...e, agent: h.agent, outcome: 'stuck', detail });
      return undefined;
    }
    await sleep(150);
  }
}

/**
 * Calls the Temporal server as an operator would, trying again for up to the step's timeout when
 * the call fails (the server restarting, its database down): the run's own calls must not end
 * the run; what the system does meanwhile is what is judged.
 */
async function persistently<T>(h: Human, what: string, call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + h.stepTimeoutMs;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if (err instanceof WorkflowFailedError || Date.now() > deadline) throw err;
      h.log?.(`chaos: ${what} failed (${(err as Error).message.split('\n')[0]}); trying again`);
      await sleep(1000);
    }
  }
}

async function countOf(h: Human, text: string): Promise<number> {
  return (await botTexts(h.sim, h.agent)).filter((t) => t.text === text).length;
}

export async function runSession(h: Human, kind: SessionKind, tag: string): Promise<void> {
  if (kind === 'echo') {
    const id = await say(h, `echo ${tag}`);
    await expect(h, { text: tag, match: 'exact', kind: 'echo' }, id);
  } else if (kind === 'signup') {
    const name = 'What is your name?';
    const names = await countOf(h, name);
    const id = await say(h, 'signup');
    if (!(await expect(h, { text: name, match: 'exact', kind: 'signup' }, id, names + 1, false))) return;
    await say(h, `N${tag}`);
    const email = `Thanks, N${tag}. What is your email?`;
    if (!(await expect(h, { text: email, match: 'exact', kind: 'signup' }, id))) return;
    await say(h, `${tag}@example.com`);
    await expect(
      h,
      { text: `Thanks N${tag}, registered ${tag}@example.com.`, match: 'exact', kind: 'signup' },
      id,
    );
    // The name question is not unique in the run: asked twice in this session is a duplicate.
    h.repeatedQuestions += Math.max(0, (await countOf(h, name)) - names - 1);
  } else if (kind === 'reminder') {
    const id = await say(h, `remind me in 5 seconds to ${tag}`);
    await expect(h, { text: `: ${tag}`, match: 'suffix', kind: 'reminder-confirmation' }, id);
    // Checked at the end of the run: it fires once, a few seconds from now.
    h.expectations.push({
      agent: h.agent,
      text: `⏰ ${tag}`,
      match: 'exact',
      kind: 'reminder',
      outcome: 'seen',
    });
  } else if (kind === 'media') {
    await sendPhoto(h, tag);
  } else {
    const question = `Ship ${tag}?`;
    // (Started again after a failed call: the id makes a second start find the first workflow.)
    const handle = await persistently(h, `requesting approval ${tag}`, () =>
      requestApproval(h.client, {
        agentKey: h.agent,
        id: tag,
        question,
        timeout: '30m',
        taskQueue: h.taskQueue,
      }),
    );
    h.approvals[tag] = 0;
    const asked = await expect(h, {
      text: `Approval needed: ${question}`,
      match: 'prefix',
      kind: 'approval-question',
    });
    if (!asked) return;
    await say(h, 'yes', asked.id);
    await expect(h, { text: `Approved: ${question}`, match: 'exact', kind: 'approval-confirmation' });
    const decision = await Promise.race([
      persistently(h, `the result of approval ${tag}`, () => handle.result()).catch((err: Error) => {
        h.log?.(`chaos: approval ${tag} gave no decision: ${err.message.split('\n')[0]}`);
        return undefined;
      }),
      sleep(h.stepTimeoutMs).then(() => undefined),
    ]);
    if (decision?.decision === 'approved') h.approvals[tag] = 1;
  }
}

/**
 * A photo with a caption: the reference bot leaves media unanswered, so what is checked is that
 * the message reached exactly one handler (its workflow id is the message's) that ran to the
 * end, and that the agent marked it read.
 */
async function sendPhoto(h: Human, tag: string): Promise<void> {
  const { id: mediaId } = await h.sim.control.uploadHumanMedia({
    bytes: PHOTO,
    mimeType: 'image/png',
    filename: `${tag}.png`,
    agent: h.agent,
  });
  h.wrote();
  const { id } = await h.sim.control.human({
    agent: h.agent,
    type: 'image',
    image: { id: mediaId, caption: `photo ${tag}` },
  });
  const e = { text: id, match: 'exact' as const, kind: 'media' as const };
  const handler = h.client.workflow.getHandle(`agent:${h.agent}:msg:${id}`);
  const started = Date.now();
  const deadline = started + h.stepTimeoutMs;
  for (;;) {
    const status = await handler.describe().then(
      (d) => d.status.name,
      () => undefined,
    );
    const inbound = (await h.sim.control.transcript({ agent: h.agent })).inbound.find((m) => m.id === id);
    if (status === 'COMPLETED' && inbound?.markedRead) {
      h.slowestStepMs = Math.max(h.slowestStepMs, Date.now() - started);
      h.expectations.push({ ...e, agent: h.agent, outcome: 'seen' });
      return;
    }
    if (Date.now() > deadline) {
      const detail = `handler ${status ?? 'not started'}, read ${inbound?.markedRead}`;
      h.log?.(`chaos: photo ${tag} on ${h.agent}: ${detail}`);
      h.expectations.push({ ...e, agent: h.agent, outcome: 'stuck', detail });
      return;
    }
    await sleep(250);
  }
}
