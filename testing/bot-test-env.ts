/**
 * `createBotTestEnv`: a scripted human against your bot, on real parts. It starts a Temporal
 * server (the time-skipping test server by default, else the dev server), the simulator over
 * real HTTP, the engine's activities, a worker running your workflow module, and the agent
 * workflow; then `say`, `react` and `read` act as the human, `expectBot` checks the bot's next
 * message, and `skip` moves time.
 *
 * Time: with time skipping, the simulator's clock is the test server's (`ServerClock`), so its
 * rate windows agree with the agent's pacing in workflow time; and the agent polls without
 * waiting (`pollTimeoutSeconds: 0`) and then only when the human acts or an hour of workflow
 * time has passed (`idlePollMs`), so that an idle bot runs no activity and time can be skipped.
 *
 * The workers are the production worker's (worker/engine-workers.ts, shared with `runAmsflow`):
 * the same queues with the same activities and ceilings; only a teardown cuts work in flight. On
 * the dev server they are a versioned build made current at once; with time skipping, unversioned.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import type { LanguageModel } from 'ai';
import { msToNumber } from '@temporalio/common/lib/time';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { ensureAgent } from '../client/agents';
import { resolveLimits, type Limits } from '../messaging/limits';
import { agentWorkflowId } from '../protocol/agent';
import { ASK_AGAIN_INTERCEPTORS, wakeSignal } from '../protocol/messages';
import { resolveTemporalBinaries } from '../tools/temporal-binaries';
import { closeSafePlugin } from '../tools/temporal-connection';
import type { RunningSimulator } from '../simulator';
import { createEngineWorkers } from '../worker/engine-workers';
import { agentTuningOf } from '../worker/ensure-agents';
import { promoteAtStart } from '../worker/promotion';
import { superviseWorkers } from '../worker/supervise-workers';
import type { AgentTuning } from '../protocol';
import {
  describeMatcher,
  matches,
  showTranscript,
  toBotMessage,
  type BotMessage,
  type Matcher,
} from './bot-messages';
import { bundleOnce, noop } from './bundle-once';
import { FailureWatch } from './failure-watch';
import { startHarnessSimulator } from './harness-simulator';
import type { ScriptedModel } from './scripted-model';
import { installTestRuntime } from './test-runtime';
import { TIME_SKIPPING_TUNING } from './time-skipping-tuning';

export type { BotMessage, Matcher } from './bot-messages';

/** A message from the human as the wire has it, e.g. `{ type: 'image', image: { id } }`. */
export interface HumanInput {
  type: string;
  [member: string]: unknown;
}

export interface BotTestEnvOptions {
  /** Path of your bot module: it exports your handler (`onMessage`); amsflow's own workflows are added. */
  workflows: string;
  /** Use the time-skipping test server (`skip` jumps). Default true; false uses the dev server. */
  timeSkipping?: boolean;
  /** Your bot's configuration (`ctx.config`). */
  config?: unknown;
  /** Your bot's own activities, on the workflow task queue. */
  activities?: Record<string, (...args: never[]) => unknown>;
  /** The human's IANA time zone, as `AMSFLOW_TIMEZONE` sets it on a worker (reminders). Default UTC. */
  timeZone?: string;
  /** The service's limits; default the spec's. */
  limits?: Partial<Limits>;
  /** Agent tuning on top of the harness's. */
  tuning?: AgentTuning;
  /** How long `expectBot` waits by default, in real ms. Default 15000. */
  expectTimeoutMs?: number;
  /** The model of the bot's model turns: a `scriptedModel(...)` (or any AI SDK model). Default none. */
  model?: ScriptedModel | LanguageModel;
}

export interface BotTestEnv {
  readonly agentKey: string;
  /** The workflow task queue of the agent and its conversations (start your own workflows on it). */
  readonly taskQueue: string;
  /** The simulator: `simulator.control` injects faults, reads the log and the media store. */
  readonly simulator: RunningSimulator;
  /**
   * A client of the test's Temporal server (start, signal, update your workflows, read their
   * results). Awaiting a result does not move time: only `skip` (and `expectBot`'s wait) does.
   */
  readonly client: Client;
  /** The human writes `text` (or sends any message, e.g. an image); returns its message id. */
  say(message: string | HumanInput, options?: { replyTo?: string | BotMessage }): Promise<string>;
  /** The human reacts to one of the bot's messages. */
  react(to: string | BotMessage, emoji: string): Promise<string>;
  /** The human reads the bot's message (its receipt becomes 'read'). */
  read(message: string | BotMessage): Promise<void>;
  /** The bot's next message, which must match; waits for it (real time) up to `timeoutMs`. */
  expectBot(matcher: Matcher, options?: { timeoutMs?: number }): Promise<BotMessage>;
  /** Moves time forward (time skipping only): every timer due meanwhile fires. */
  skip(duration: Duration): Promise<void>;
  /** Every message of the chat so far, both ways, in order. */
  transcript(): Promise<BotMessage[]>;
  /** Stops everything. */
  teardown(): Promise<void>;
}

/** Real ms `expectBot` waits before time starts to move faster; then workflow ms per step. */
const EXPECT_STEP_REAL_MS = 500;
const EXPECT_STEP_SKIP_MS = 5_000;

/** Starts a bot test environment; `teardown()` it after the test. */
export async function createBotTestEnv(options: BotTestEnvOptions): Promise<BotTestEnv> {
  installTestRuntime(); // before the first connection creates a Runtime
  const timeSkipping = options.timeSkipping ?? true;
  const { cli, testServer } = await resolveTemporalBinaries({ log: noop });
  const binary = timeSkipping ? testServer : cli;
  const server = {
    ...(binary.kind === 'path' ? { executable: { type: 'existing-path' as const, path: binary.path } } : {}),
    // Its own warnings (each failed workflow task, again) would fill the test's output.
    ...(timeSkipping ? {} : { log: { format: 'pretty', level: 'error' } }),
  };
  // Its client connection closes at teardown: guarded so that a retry timer left set cannot
  // crash the test's process (tools/temporal-connection.ts).
  const plugins = [closeSafePlugin];
  const env = timeSkipping
    ? await TestWorkflowEnvironment.createTimeSkipping({ server, plugins })
    : await TestWorkflowEnvironment.createLocal({ server, plugins });
  const cleanups: (() => Promise<unknown>)[] = [() => env.teardown()];
  try {
    return await start(env, options, timeSkipping, cleanups);
  } catch (err) {
    for (const step of cleanups.reverse()) await step().catch(noop);
    throw err;
  }
}

async function start(
  env: TestWorkflowEnvironment,
  options: BotTestEnvOptions,
  timeSkipping: boolean,
  cleanups: (() => Promise<unknown>)[],
): Promise<BotTestEnv> {
  const agentKey = `bot${randomUUID().slice(0, 8)}`;
  const taskQueue = `bot-test-${agentKey}`;
  const watch = new FailureWatch(installTestRuntime(), env.client, agentKey, taskQueue);
  cleanups.push(async () => watch.close());
  const token = `token-${randomUUID()}`;
  const sim = await startHarnessSimulator(env, agentKey, token, options.limits, timeSkipping);
  cleanups.push(() => sim.close());
  // The production worker's wiring (worker/engine-workers.ts); only a teardown does not drain.
  const engine = await createEngineWorkers({
    connection: env.nativeConnection,
    namespace: env.namespace,
    taskQueue,
    workflowBundle: await bundleOnce(options.workflows),
    agents: [{ agentKey, token, baseUrl: sim.url }],
    limits: resolveLimits(options.limits),
    client: env.client,
    timeZone: options.timeZone,
    botActivities: options.activities,
    ...(options.model ? { model: { model: options.model, name: 'scripted' } } : {}),
    drain: false,
    // The time-skipping server has no Worker Deployments (it refuses their calls), and a test runs
    // one build: pinning has nothing to choose between there. On the dev server, as in production.
    versioning: timeSkipping ? false : {},
    // The time-skipping server is the harness's own child on loopback, one worker beside it: no
    // network can cut the worker off, and a lease call per poll would only add a round trip to every step.
    pollLease: !timeSkipping,
  });
  cleanups.push(() => engine.closeClients());
  // As in production, one worker failing stops the others (the test then fails, not hangs).
  const run = superviseWorkers(engine.workers, noop, () => Promise.resolve());
  cleanups.push(async () => {
    run.stop();
    await run.done.catch(noop);
  });
  if (engine.build) await promoteAtStart(env.client, engine.build, 'always', noop);
  await ensureAgent(env.client, {
    agentKey,
    taskQueue,
    limits: options.limits,
    tuning: agentTuningOf(
      { ...(timeSkipping ? TIME_SKIPPING_TUNING : { pollTimeoutSeconds: 5 }), ...options.tuning },
      { model: options.model !== undefined },
    ),
    botConfig: options.config,
  });
  return new Harness(
    env,
    sim,
    agentKey,
    taskQueue,
    timeSkipping,
    options.expectTimeoutMs ?? 15_000,
    cleanups,
    watch,
  );
}

class Harness implements BotTestEnv {
  private seen = 0;

  constructor(
    private readonly env: TestWorkflowEnvironment,
    readonly simulator: RunningSimulator,
    readonly agentKey: string,
    readonly taskQueue: string,
    private readonly timeSkipping: boolean,
    private readonly expectTimeoutMs: number,
    private readonly cleanups: (() => Promise<unknown>)[],
    private readonly watch: FailureWatch,
  ) {
    this.client = new Client({
      connection: env.connection,
      namespace: env.namespace ?? 'default',
      interceptors: ASK_AGAIN_INTERCEPTORS,
    });
  }

  /** A plain client: the environment's own one skips time while a result is awaited. */
  readonly client: Client;

  private async wake(): Promise<void> {
    if (!this.timeSkipping) return;
    await this.client.workflow.getHandle(agentWorkflowId(this.agentKey)).signal(wakeSignal);
  }

  async say(message: string | HumanInput, options: { replyTo?: string | BotMessage } = {}) {
    this.watch.check();
    const replyTo = typeof options.replyTo === 'string' ? options.replyTo : options.replyTo?.id;
    const body: HumanInput =
      typeof message === 'string' ? { type: 'text', text: { body: message } } : message;
    const { id } = await this.simulator.control.human({
      ...body,
      agent: this.agentKey,
      ...(replyTo ? { context: { id: replyTo } } : {}),
    });
    await this.wake();
    return id;
  }

  async react(to: string | BotMessage, emoji: string): Promise<string> {
    const messageId = typeof to === 'string' ? to : to.id;
    return this.say({ type: 'reaction', reaction: { message_id: messageId, emoji } });
  }

  async read(message: string | BotMessage): Promise<void> {
    this.watch.check();
    await this.simulator.control.read({
      id: typeof message === 'string' ? message : message.id,
      agent: this.agentKey,
    });
    await this.wake();
  }

  async transcript(): Promise<BotMessage[]> {
    const conversation = await this.simulator.control.conversation(this.agentKey);
    return conversation.entries.map(toBotMessage);
  }

  async expectBot(matcher: Matcher, options: { timeoutMs?: number } = {}): Promise<BotMessage> {
    const timeoutMs = options.timeoutMs ?? this.expectTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    const waitingSince = Date.now();
    for (;;) {
      this.watch.check();
      const all = await this.transcript();
      const fromBot = all.filter((m) => m.from === 'bot');
      const next = fromBot[this.seen];
      if (next) {
        this.seen++;
        if (matches(next, matcher)) return next;
        throw new Error(
          `expected the bot to say ${describeMatcher(matcher)}, it said ${JSON.stringify(next.text ?? next.type)}\n${showTranscript(all)}`,
        );
      }
      if (Date.now() > deadline) {
        throw new Error(
          `the bot said nothing matching ${describeMatcher(matcher)} within ${timeoutMs} ms\n${showTranscript(all)}`,
        );
      }
      // While the human waits, time passes: faster than real time with time skipping, so that a
      // send or poll waiting for its rate window does not stall the test.
      if (this.timeSkipping && Date.now() - waitingSince >= EXPECT_STEP_REAL_MS) {
        await this.env.sleep(EXPECT_STEP_SKIP_MS);
      } else {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  async skip(duration: Duration): Promise<void> {
    if (!this.timeSkipping) throw new Error('skip() needs createBotTestEnv({ timeSkipping: true })');
    await this.env.sleep(msToNumber(duration));
  }

  async teardown(): Promise<void> {
    for (const step of this.cleanups.reverse()) await step().catch(noop);
    this.cleanups.length = 0;
  }
}
