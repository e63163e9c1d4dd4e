/**
 * Tracing against the real OpenTelemetry Collector (issue 38, point 3; `npm test`'s main tier).
 * The collector is built from its Go modules (tools/otelcol: the collector's OTLP receiver and
 * contrib's file exporter, by `npm run cluster:setup`; without it this suite fails, never skips),
 * started on a free loopback port with a configuration written here, and writes what it received
 * as OTLP/JSON lines. An echo through a worker in this process (the simulator, the shared dev
 * server) with OTEL_EXPORTER_OTLP_ENDPOINT at the collector: one trace holds the poll that read the
 * message, the handler workflow's run and the send, each with the agent; the message's text and the
 * agent's token are nowhere in what the collector wrote or logged. test/worker/tracing.test.ts checks
 * the same export, in more detail, against an endpoint of its own.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOtelCollector, type RunningCollector } from '../support/otel-collector';
import { waitFor } from '../support/temporal';
import {
  attr,
  echoThroughWorker,
  spansIn,
  startTracedAgent,
  tracedWorkerConfig,
  uniqueAgentId,
  type OtlpSpan,
  type OtlpTraces,
  type TracedAgent,
} from '../support/traced-echo';

const TOKEN = `collector-token-${randomUUID().slice(0, 8)}`;
const AGENT = uniqueAgentId('col');
const WORDS = `collector-words-${randomUUID().slice(0, 8)}`;

let dir: string;
let collector: RunningCollector;
let agent: TracedAgent;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'amsflow-otelcol-'));
  collector = await startOtelCollector(dir);
  agent = await startTracedAgent(AGENT, TOKEN);
});

afterAll(async () => {
  await agent?.close();
  await collector?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The echo's trace in what the collector wrote: its handler, and the poll and send of the same trace. */
function echoTrace(): { poll: OtlpSpan; handler: OtlpSpan; send: OtlpSpan } | undefined {
  const spans = spansIn(collector.requests());
  const handler = spans.find((s) => s.name === 'RunWorkflow:onMessage' && attr(s, 'amsflow.agent') === AGENT);
  if (!handler) return undefined;
  const trace = spans.filter((s) => s.traceId === handler.traceId);
  const poll = trace.find((s) => s.name === 'RunActivity:pollUpdates');
  const send = trace.find((s) => s.name === 'RunActivity:sendMessage');
  return poll && send ? { poll, handler, send } : undefined;
}

it('receives the echo as one trace: the poll that read it, the handler, the send', async () => {
  const config = tracedWorkerConfig(agent, collector.endpoint);
  expect(config.observability.tracing).toBe('otlp');
  await echoThroughWorker(agent, config, WORDS);

  // The worker's drain has exported; the collector writes on its own schedule (every 100 ms).
  const { poll, handler, send } = await waitFor("the echo's trace in the collector's output", echoTrace, {
    timeoutMs: 30_000,
    intervalMs: 100,
  }).catch((err: Error) => {
    const seen = spansIn(collector.requests()).map((s) => s.name);
    throw new Error(
      `${err.message}\nspans written: ${seen.join(', ')}\ncollector logs:\n${collector.logs()}`,
    );
  });
  expect(new Set([poll.traceId, handler.traceId, send.traceId]).size).toBe(1);
  expect(poll.parentSpanId ?? '').toBe('');
  expect(handler.parentSpanId).toBe(poll.spanId);
  for (const span of [poll, handler, send]) expect(attr(span, 'amsflow.agent')).toBe(AGENT);
  expect(attr(poll, 'amsflow.message.ids')).toEqual([attr(handler, 'amsflow.message.id')]);
  expect(attr(handler, 'temporal.workflow.id')).toBe(
    `agent:${AGENT}:msg:${String(attr(handler, 'amsflow.message.id'))}`,
  );
  expect(attr(send, 'amsflow.send.message_id')).toEqual(expect.any(String));
  // The resource passed through the collector as the worker set it (OTEL_SERVICE_NAME, else amsflow).
  const services = collector
    .requests()
    .flatMap((text) => (JSON.parse(text) as OtlpTraces).resourceSpans ?? [])
    .map((r) => attr(r.resource, 'service.name'));
  expect(new Set(services)).toEqual(new Set([process.env.OTEL_SERVICE_NAME?.trim() || 'amsflow']));

  // Stopped, the collector has flushed and logged all it will.
  await collector.stop();
  const output = `${readFileSync(collector.outputFile, 'utf8')}\n${collector.logs()}`;
  expect(output).toContain(AGENT);
  expect(output).not.toContain(WORDS);
  expect(output).not.toContain(TOKEN);
}, 120_000);
