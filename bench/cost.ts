/**
 * The cost table: what an echo, a signup step, an approval and a reminder cost Temporal, all
 * workflows together, counted from their histories (bench/message-cost.ts). One agent of the
 * reference bot runs in this process on the given server; each scenario runs `n` times, one
 * after another as a human would, with the receipts of each settled before the next, and the
 * agent's (and the reminders workflow's) events within the scenario's time range are added to the
 * whole histories of the workflows it started (handlers, approvals).
 */
import { randomUUID } from 'node:crypto';
import { requestApproval } from '../client/approval-handle';
import { startSimulator, type RunningSimulator } from '../simulator';
import { startAmsflowAgent, type BenchTemporal } from './latency';
import { waitUntil } from './wait-until';
import { addCounts, agentEvents, countEvents, perUnit, workflowCounts, type Counts } from './message-cost';

export type CostScenario = 'echo' | 'signupStep' | 'approval' | 'reminder';

export interface CostRow {
  scenario: CostScenario;
  /** How many units were measured (echoes, signup answers, approvals, reminders fired). */
  units: number;
  perUnit: Counts;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Stage {
  temporal: BenchTemporal;
  sim: RunningSimulator;
  agentKey: string;
  taskQueue: string;
  texts(): Promise<string[]>;
  say(text: string, quote?: string): Promise<string>;
  /** Waits for a bot text matching `test` (the `nth` one), then for the receipts to settle. */
  saw(what: string, test: (t: string) => boolean, nth?: number): Promise<void>;
}

/** Runs `scenario` `n` times; returns its cost per unit. */
async function measure(
  stage: Stage,
  scenario: CostScenario,
  n: number,
  run: (i: number) => Promise<string[]>,
): Promise<CostRow> {
  const from = Date.now();
  const started: string[] = [];
  for (let i = 0; i < n; i++) started.push(...(await run(i)));
  const to = Date.now();
  const { client } = stage.temporal;
  const ranged = countEvents([
    ...(await agentEvents(client, stage.agentKey, from, to)),
    ...(await rangedEvents(stage, `reminders:${stage.agentKey}`, from, to)),
  ]);
  const whole = addCounts(await workflowCounts(client, started));
  return { scenario, units: n, perUnit: perUnit(addCounts([ranged, whole]), n) };
}

/** A long-lived workflow's events within the range (none when it does not exist). */
async function rangedEvents(stage: Stage, workflowId: string, from: number, to: number) {
  const history = await stage.temporal.client.workflow
    .getHandle(workflowId)
    .fetchHistory()
    .catch(() => undefined);
  const ms = (e: { eventTime?: { seconds?: unknown; nanos?: number | null } | null }) =>
    Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
  return (history?.events ?? []).filter((e) => ms(e) >= from && ms(e) <= to);
}

/** The human's side of one agent's chat on `sim`. */
function stageOf(temporal: BenchTemporal, sim: RunningSimulator, agentKey: string): Stage {
  const texts = async () =>
    (await sim.control.transcript({ agent: agentKey })).sent.map(
      (s) => (s.body as { text?: { body?: string } }).text?.body ?? '',
    );
  return {
    temporal,
    sim,
    agentKey,
    taskQueue: `bench-${agentKey}`,
    texts,
    say: async (text, quote) => (await sim.control.humanText(text, { agent: agentKey, quote })).id,
    saw: async (what, test, nth = 1) => {
      await waitUntil(what, async () => (await texts()).filter(test).length >= nth, 60_000);
      // The human reads it, and its receipts come in, before the next step.
      const last = (await sim.control.transcript({ agent: agentKey })).sent.at(-1);
      if (last) await sim.control.read({ id: last.id, agent: agentKey });
      await sleep(2000);
    },
  };
}

/** An approval asked from outside (`requestApproval`), answered "yes" by quoting the question. */
async function approval(stage: Stage, i: number): Promise<string[]> {
  const handle = await requestApproval(stage.temporal.client, {
    agentKey: stage.agentKey,
    id: `a${i}`,
    question: `Ship ${i}?`,
    timeout: '10m',
    taskQueue: stage.taskQueue,
  });
  await stage.saw(`approval ${i}`, (t) => t.startsWith(`Approval needed: Ship ${i}?`));
  const asked = (await stage.sim.control.transcript({ agent: stage.agentKey })).sent.at(-1)!;
  // The answer goes to the approval workflow: no handler of its own.
  await stage.say('yes', asked.id);
  await stage.saw(`approved ${i}`, (t) => t === `Approved: Ship ${i}?`);
  await handle.result();
  return [handle.workflowId];
}

/** The four scenarios, `n` of each, against `temporal`. */
export async function measureCosts(temporal: BenchTemporal, n: number): Promise<CostRow[]> {
  const id = randomUUID().slice(0, 8);
  const agent = { id: `cost-${id}`, token: `token-${randomUUID()}`, creator: 'user:4242' };
  const sim = await startSimulator({ port: 0, agents: [agent] });
  const amsflow = await startAmsflowAgent({
    temporalAddress: temporal.address,
    sim,
    agentKey: agent.id,
    token: agent.token,
    limits: {},
  }).catch(async (err: unknown) => {
    await sim.close();
    throw err;
  });
  const stage = stageOf(temporal, sim, agent.id);
  const handler = (m: string) => [`agent:${agent.id}:msg:${m}`];
  try {
    await stage.say('echo warm-up');
    await stage.saw('the warm-up echo', (t) => t === 'warm-up');
    return [
      await measure(stage, 'echo', n, async (i) => {
        const m = await stage.say(`echo e${i}`);
        await stage.saw(`echo ${i}`, (t) => t === `e${i}`);
        return handler(m);
      }),
      await signupSteps(stage, n),
      await measure(stage, 'approval', n, (i) => approval(stage, i)),
      await measure(stage, 'reminder', n, async (i) => {
        const m = await stage.say(`remind me in 2 seconds to r${i}`);
        await stage.saw(`reminder ${i} set`, (t) => t.endsWith(`: r${i}`));
        await stage.saw(`reminder ${i} fired`, (t) => t === `⏰ r${i}`);
        return handler(m);
      }),
    ];
  } finally {
    await amsflow.shutdown();
    // Nothing of this agent may go on loading the server during the next part.
    for (const wf of [`agent:${agent.id}`, `reminders:${agent.id}`])
      await temporal.client.workflow
        .getHandle(wf)
        .terminate('bench over')
        .catch(() => undefined);
    await sim.close();
  }
}

/** A signup step: one answer and the next question (the name, then the email), `n` of them. */
async function signupSteps(stage: Stage, n: number): Promise<CostRow> {
  const handlers: string[] = [];
  let steps = 0;
  const from = Date.now();
  for (let done = 0; done < n;) {
    const m = await stage.say('signup');
    handlers.push(`agent:${stage.agentKey}:msg:${m}`);
    const asked = (await stage.texts()).filter((t) => t === 'What is your name?').length + 1;
    await stage.saw('the name question', (t) => t === 'What is your name?', asked);
    const tag = `n${done}`;
    await stage.say(tag);
    await stage.saw('the email question', (t) => t === `Thanks, ${tag}. What is your email?`);
    await stage.say(`${tag}@example.com`);
    await stage.saw('the registration', (t) => t === `Thanks ${tag}, registered ${tag}@example.com.`);
    // Three steps: the signup message (a new handler asks), the name, the email.
    steps += 3;
    done += 3;
  }
  const to = Date.now();
  const { client } = stage.temporal;
  const ranged = countEvents(await agentEvents(client, stage.agentKey, from, to));
  const whole = addCounts(await workflowCounts(client, handlers));
  return { scenario: 'signupStep', units: steps, perUnit: perUnit(addCounts([ranged, whole]), steps) };
}
