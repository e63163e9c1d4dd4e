/**
 * Tracing (issue 38, point 3; `npm test`'s main tier): a worker with `OTEL_EXPORTER_OTLP_ENDPOINT`
 * set (in process, against the simulator and the shared dev server) exports, through the real
 * OTLP/HTTP exporter, to a local OTLP endpoint that decodes what it sent. An echo's spans form one
 * trace: the poll activity that read the message (its root), the handler workflow's run, and the
 * send activity; they carry the agent, the workflow ids and the message id; the message's text and
 * the agent's token are nowhere in what was sent. Histories recorded with tracing on replay with
 * and without it, and the committed histories (recorded without) replay with it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { bundleBot } from '../../worker/bot-bundle';
import { loadConfig } from '../../worker/config';
import { Observability } from '../../worker/observability';
import { replayAll } from '../../worker/replay-check';
import { historiesDir, recordedWorkflowIds, workflowIdsFile } from '../support/histories';
import { connectDevServer } from '../support/temporal';
import {
  attr,
  BOT,
  echoThroughWorker,
  spansIn,
  startTracedAgent,
  tracedWorkerConfig,
  uniqueAgentId,
  type TracedAgent,
} from '../support/traced-echo';

const TOKEN = 'trace-token-4d1e8b0c';
const AGENT = uniqueAgentId('trc');

/** A local OTLP/HTTP endpoint: every request's raw body. */
let receiver: Server;
const bodies: string[] = [];
let agent: TracedAgent;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  agent = await startTracedAgent(AGENT, TOKEN);
});

afterAll(async () => {
  await agent?.close();
  await new Promise((ok) => receiver?.close(ok));
});

let handlerId = '';

describe('without an OTLP endpoint', () => {
  it('tracing is off: no interceptor, no sink, nothing of it bundled', async () => {
    const config = loadConfig({ AMSFLOW_METRICS_PORT: 'off', AMSFLOW_WORKFLOWS: BOT });
    expect(config.observability.tracing).toBeUndefined();
    expect(loadConfig({ AMSFLOW_TRACING: 'otlp' }).observability.tracesEndpoint).toBe(
      'http://localhost:4318/v1/traces',
    );
    expect(
      loadConfig({ AMSFLOW_TRACING: 'off', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318' }).observability
        .tracing,
    ).toBeUndefined();
    const obs = await new Observability(config.observability).start();
    const options = obs.workerOptions();
    expect(options.sinks).toBeUndefined();
    expect(options.interceptors?.activity).toHaveLength(2);
    await obs.close();
    expect((await bundleBot({ workflowsPath: BOT })).code).not.toContain('AgentTraceJoin');
  });
});

describe('a worker with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('exports one trace per message: the poll that read it, the handler, the send', async () => {
    const port = (receiver.address() as AddressInfo).port;
    const config = tracedWorkerConfig(agent, `http://127.0.0.1:${port}`);
    expect(config.observability.tracing).toBe('otlp');
    await echoThroughWorker(agent, config, 'secret-words-5b7c');
    const spans = spansIn(bodies);
    const handler = spans.find(
      (s) => s.name === 'RunWorkflow:onMessage' && attr(s, 'amsflow.agent') === AGENT,
    );
    expect(handler).toBeDefined();
    handlerId = String(attr(handler, 'temporal.workflow.id'));
    const messageId = attr(handler, 'amsflow.message.id');
    expect(handlerId).toBe(`agent:${AGENT}:msg:${String(messageId)}`);
    const trace = spans.filter((s) => s.traceId === handler!.traceId);
    const poll = trace.find((s) => s.name === 'RunActivity:pollUpdates');
    const send = trace.find((s) => s.name === 'RunActivity:sendMessage');
    // The poll that read the message is the trace's root and the handler's parent.
    expect(poll?.parentSpanId ?? '').toBe('');
    expect(handler!.parentSpanId).toBe(poll!.spanId);
    expect(attr(poll, 'amsflow.message.ids')).toEqual([messageId]);
    expect(attr(send, 'amsflow.send.message_id')).toEqual(expect.any(String));
    for (const span of [poll, handler, send]) expect(attr(span, 'amsflow.agent')).toBe(AGENT);
    expect(attr(send, 'temporal.workflow.id')).toBe(`agent:${AGENT}`);
    // Idle polls are not exported: every poll span read a message.
    expect(
      spans.filter((s) => s.name === 'RunActivity:pollUpdates' && !attr(s, 'amsflow.message.ids')),
    ).toEqual([]);
    const sent = bodies.join('\n');
    expect(sent).not.toContain('secret-words');
    expect(sent).not.toContain(TOKEN);
  });

  it('a history recorded with tracing on replays with tracing on and off', async () => {
    expect(handlerId).not.toBe('');
    const temporal = await connectDevServer();
    try {
      // Ended first: a history that ends mid-task is not one a worker would replay.
      await temporal.client.workflow.getHandle(`agent:${AGENT}`).terminate('recorded');
      const histories = await Promise.all(
        [handlerId, `agent:${AGENT}`].map(async (workflowId) => ({
          workflowId,
          history: await temporal.client.workflow.getHandle(workflowId).fetchHistory(),
        })),
      );
      for (const tracing of [true, false]) {
        const bundle = await bundleBot({ workflowsPath: BOT, tracing });
        const outcomes = await replayAll(bundle, histories, undefined, tracing);
        expect(outcomes.map((o) => o.error)).toEqual([undefined, undefined]);
      }
    } finally {
      await temporal.close();
    }
  });

  it('the committed histories (recorded without tracing) replay with tracing on', async () => {
    const ids = recordedWorkflowIds();
    const histories = readdirSync(historiesDir)
      .filter((f) => f.endsWith('.json') && join(historiesDir, f) !== workflowIdsFile)
      .map((f) => ({
        workflowId: ids[f.replace(/\.json$/, '')],
        history: JSON.parse(readFileSync(join(historiesDir, f), 'utf8')) as unknown,
      }));
    expect(histories.length).toBeGreaterThan(0);
    const bundle = await bundleBot({
      workflowsPath: require.resolve('../replay/all-workflows'),
      handlers: [],
      tracing: true,
    });
    const outcomes = await replayAll(bundle, histories, undefined, true);
    expect(outcomes.filter((o) => o.error).map((o) => `${o.workflowId}: ${o.error}`)).toEqual([]);
  });
});
