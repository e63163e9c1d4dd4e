/**
 * What the tracing suites share (test/worker/tracing.test.ts, against a local OTLP endpoint of its
 * own; test/worker/tracing-collector.test.ts, against the real OpenTelemetry Collector): an agent on
 * the simulator, an echo through a worker in this process (runAmsflow, the shared dev server) whose
 * traces go to an OTLP/HTTP endpoint, and the spans of OTLP/JSON export requests.
 */
import { randomUUID } from 'node:crypto';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { loadConfig, type WorkerConfig } from '../../worker/config';
import { runAmsflow } from '../../worker/run';
import { connectDevServer, devServerAddress, uniqueTaskQueue } from './temporal';

/** The reference bot: "echo X" answers "X". */
export const BOT = require.resolve('../../examples/reference/bot');

/** One span as OTLP/JSON carries it. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

/** An OTLP/JSON export request (`ExportTraceServiceRequest`), as much of it as the suites read. */
export interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: OtlpSpan['attributes'] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

/** The spans of export requests, each an OTLP/JSON text. */
export function spansIn(requests: string[]): OtlpSpan[] {
  return requests.flatMap((text) =>
    ((JSON.parse(text) as OtlpTraces).resourceSpans ?? []).flatMap((r) =>
      (r.scopeSpans ?? []).flatMap((s) => s.spans ?? []),
    ),
  );
}

/** An attribute's value: a string, an int (as OTLP/JSON writes it: a string), a bool, or a string array. */
export function attr(span: { attributes?: OtlpSpan['attributes'] } | undefined, key: string): unknown {
  const value = span?.attributes?.find((a) => a.key === key)?.value;
  if (!value) return undefined;
  if ('arrayValue' in value) {
    return ((value.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(
      (v) => v.stringValue,
    );
  }
  return value.stringValue ?? value.intValue ?? value.boolValue;
}

/** An agent of its own on a simulator of its own; {@link TracedAgent.close} in afterAll. */
export interface TracedAgent {
  id: string;
  token: string;
  sim: RunningSimulator;
  /** Closes the simulator and terminates the agent's workflow. */
  close(): Promise<void>;
}

export async function startTracedAgent(id: string, token: string): Promise<TracedAgent> {
  const sim = await startSimulator({
    port: 0,
    agents: [{ id, token, creator: 'user:7', creatorName: 'H' }],
  });
  return {
    id,
    token,
    sim,
    async close() {
      await sim.close();
      const temporal = await connectDevServer();
      await temporal.client.workflow
        .getHandle(`agent:${id}`)
        .terminate('test over')
        .catch(() => undefined);
      await temporal.close();
    },
  };
}

/** A unique agent id with `prefix` (an AMS agent id: letters and digits). */
export function uniqueAgentId(prefix: string): string {
  return `${prefix}${randomUUID().slice(0, 8)}`;
}

/** The worker's configuration: the agent on its simulator, the dev server, traces to `otlpEndpoint`. */
export function tracedWorkerConfig(agent: TracedAgent, otlpEndpoint: string | undefined): WorkerConfig {
  return loadConfig({
    AMS_TOKEN: agent.token,
    AMS_BASE_URL: agent.sim.url,
    AMSFLOW_AGENT: agent.id,
    AMSFLOW_TASK_QUEUE: uniqueTaskQueue('trace'),
    AMSFLOW_WORKFLOWS: BOT,
    TEMPORAL_ADDRESS: devServerAddress(),
    AMSFLOW_METRICS_PORT: 'off',
    AMSFLOW_DEPLOYMENT: 'off',
    ...(otlpEndpoint === undefined ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint }),
  });
}

/**
 * Runs a worker with `config`, sends `echo <words>` as a human and waits for the answer `<words>`,
 * then shuts the worker down (its drain exports the spans still buffered).
 */
export async function echoThroughWorker(
  agent: TracedAgent,
  config: WorkerConfig,
  words: string,
): Promise<void> {
  const running = await runAmsflow(config, () => undefined);
  try {
    await agent.sim.control.humanText(`echo ${words}`, { agent: agent.id });
    await agent.sim.control.waitFor(
      (c) => c.conversation(agent.id),
      (chat) =>
        chat.entries.some((e) => e.direction === 'out' && (e.payload as { body?: string }).body === words),
      { timeoutMs: 60_000, intervalMs: 200 },
    );
  } finally {
    await running.shutdown();
  }
}
