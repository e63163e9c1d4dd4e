/**
 * Metrics and logs of a real worker process (worker/main.ts) against the dev server and the
 * simulator: `/metrics` scraped while the echo bot answers a human, amsflow's counters moving and
 * the Temporal runtime's metrics served in the same registry; JSON logs with agent key and workflow ids,
 * never the token, message bodies only at debug level with `AMSFLOW_LOG_BODIES=1`.
 */
import { freePort } from '../../worker/dev-server';
import { waitFor } from '../support/temporal';
import { engineSuite, type Engine } from './support';
import { sample } from '../support/metrics-sample';

async function get(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
}

describe('observability of a worker process', () => {
  const suite = engineSuite();

  it('serves /metrics with amsflow counters that move during a conversation, and health', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const engine = await suite.start({ windowMs: 2000, env: { AMSFLOW_METRICS_PORT: String(port) } });
    await engine.startWorker();
    const agent = { agent: engine.agentKey };

    expect(await get(`${base}/healthz`)).toMatchObject({ status: 200 });
    const ready = await waitFor('readyz 200', async () => {
      const r = await get(`${base}/readyz`);
      return r.status === 200 && r;
    });
    expect(JSON.parse(ready.text)).toMatchObject({ ready: true, workers: expect.any(Array) });

    const before = (await get(`${base}/metrics`)).text;
    expect(sample(before, 'amsflow_sends_total', { ...agent, outcome: 'accepted' })).toBe(0);
    expect(before).toMatch(/^# TYPE amsflow_poll_duration_seconds histogram$/m);
    const pollsBefore = sample(before, 'amsflow_polls_total', agent);

    await engine.human('echo metrics please');
    await waitFor('the echo reply', async () => (await engine.sentTexts()).includes('metrics please'));
    const after = await waitFor(
      'amsflow counters to move',
      async () => {
        const text = (await get(`${base}/metrics`)).text;
        const moved =
          sample(text, 'amsflow_sends_total', { ...agent, outcome: 'accepted' }) >= 1 &&
          sample(text, 'amsflow_handler_starts_total', agent) >= 1 &&
          sample(text, 'amsflow_polls_total', agent) > pollsBefore &&
          sample(text, 'amsflow_messages_received_total', agent) >= 1;
        return moved && text;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(sample(after, 'amsflow_poll_duration_seconds_count', agent)).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'amsflow_send_duration_seconds_count', agent)).toBeGreaterThanOrEqual(1);
    expect(after).toMatch(
      new RegExp(`^amsflow_outbox_queue_length\\{agent="${engine.agentKey}"\\} \\d+$`, 'm'),
    );
    expect(after).toMatch(
      new RegExp(
        `^amsflow_send_window_utilisation\\{agent="${engine.agentKey}",endpoint="messages"\\} [\\d.]+$`,
        'm',
      ),
    );
    // The Temporal runtime's own metrics, in the same registry (each family once).
    expect(after).toMatch(/^temporal_request_total\{.*service_name="temporal-core-sdk".*\} \d+$/m);
    const types = [...after.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]);
    expect(types.filter((name, i) => types.indexOf(name) !== i)).toEqual([]);
  });

  it('writes JSON log lines with agent and workflow ids, never the token, bodies only when asked', async () => {
    const run = async (engine: Engine, env: Record<string, string>) => {
      Object.assign(engine.options, {
        env: { AMSFLOW_LOG_FORMAT: 'json', AMSFLOW_LOG_LEVEL: 'debug', ...env },
      });
      const worker = await engine.startWorker();
      return worker;
    };
    const engine = await suite.start({ windowMs: 2000 });
    const plain = await run(engine, {});
    await engine.human('echo first-body-7f3a');
    await waitFor('the first echo', async () => (await engine.sentTexts()).includes('first-body-7f3a'));
    await waitFor('the debug line of the send', () => plain.output.some((l) => l.includes('send: accepted')));
    expect(await plain.stop()).toBe(0);

    const withBodies = await run(engine, { AMSFLOW_LOG_BODIES: '1' });
    await engine.human('echo second-body-9c1e');
    await waitFor('the second echo', async () => (await engine.sentTexts()).includes('second-body-9c1e'));
    await waitFor('the body in a debug line', () =>
      withBodies.output.some((l) => l.includes('second-body-9c1e')),
    );
    expect(await withBodies.stop()).toBe(0);

    for (const output of [plain.output, withBodies.output]) {
      const lines = output.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.length).toBeGreaterThan(5);
      expect(output.join('\n')).not.toContain(engine.token);
      expect(lines.every((l) => typeof l.time === 'string' && typeof l.level === 'string')).toBe(true);
      expect(
        lines.some(
          (l) => l.agentKey === engine.agentKey && l.workflowId === engine.agentWorkflowId && l.runId,
        ),
      ).toBe(true);
      expect(
        lines.some(
          (l) =>
            l.agentKey === engine.agentKey &&
            String(l.workflowId).startsWith(`${engine.agentWorkflowId}:msg:`),
        ),
      ).toBe(true);
    }
    // Without AMSFLOW_LOG_BODIES no body at all; with it, bodies in debug lines only.
    expect(plain.output.join('\n')).not.toContain('first-body-7f3a');
    const bodyLines = withBodies.output.filter((l) => l.includes('second-body-9c1e'));
    expect(bodyLines.length).toBeGreaterThan(0);
    expect(bodyLines.every((l) => (JSON.parse(l) as { level: string }).level === 'debug')).toBe(true);
  });
});
