/**
 * Bodies out of WARN logs (issue 37): with `AMSFLOW_LOG_BODIES` off, no message text reaches a
 * log line, a failure's message or the error a failed poll throws, whether a page member does not
 * fit (the real simulator over HTTP; logged by id, problem and size, counted) or the page itself
 * is unreadable (a local server: the raw body stays off the error's enumerable members, which the
 * SDK's "Activity failed" WARN line walks). The token never appears either.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../activities';
import { MessagingClient, UnexpectedResponseError } from '../../messaging';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { AmsflowMetrics } from '../../worker/observability/amsflow-metrics';
import { activityMetricsInterceptor } from '../../worker/observability/activity-metrics';
import { AmsflowLogger } from '../../worker/observability/logger';
import { CannedServer } from '../messaging/hostile-wire';
import { engineClient } from '../support/engine-client';

const AGENT = 'demo';
const CANARY = 'BODY-CANARY-the-human-wrote-this';

/** An activity environment whose log lines (JSON, debug and up, no bodies) are kept. */
function capturing(metrics = new AmsflowMetrics()) {
  const lines: string[] = [];
  const logger = new AmsflowLogger({
    format: 'json',
    level: 'debug',
    bodies: false,
    stream: { write: (line: string) => lines.push(line) },
  });
  const interceptors = [activityMetricsInterceptor({ metrics, logger, logBodies: false })];
  const info = { activityType: 'pollUpdates' };
  return { env: new MockActivityEnvironment(info, { logger, interceptors }), lines, metrics };
}

async function settle<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; err: unknown }> {
  try {
    return { ok: true, value: await p };
  } catch (err) {
    return { ok: false, err };
  }
}

describe('a page member that does not fit, with AMSFLOW_LOG_BODIES off', () => {
  let sim: RunningSimulator;
  let client: MessagingClient;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0 });
    client = engineClient(sim);
  });
  afterAll(async () => {
    await client.close();
    await sim.close();
  });

  it('is logged at WARN and counted by id and problem, never with its text', async () => {
    await sim.control.reset();
    const poison = await sim.control.human({ type: 'text', text: { body: CANARY }, image: 5 });
    const acts = createActivities(new Map([[AGENT, client]]), { pollTicketsDir: false });
    const { env, lines, metrics } = capturing();

    const out = await settle(
      env.run(acts.pollUpdates, { agentKey: AGENT, offset: 0, limit: 50, timeoutSeconds: 0 }),
    );

    const all = lines.join('\n');
    expect(all).not.toContain(CANARY);
    expect(all).not.toContain(sim.token);
    if (!out.ok) expect(JSON.stringify({ message: (out.err as Error).message })).not.toContain(CANARY);
    expect(out.ok).toBe(true);
    const warned = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.level === 'warn');
    expect(warned).toEqual([
      expect.objectContaining({
        msg: 'poll: a page member did not fit',
        id: poison.id,
        kind: 'message',
        action: 'unknown',
        problems: ['image: expected object, got number'],
      }),
    ]);
    const family = metrics.registry.collect().find((f) => f.name === 'amsflow_inbound_misfits_total');
    expect(family?.series).toEqual([
      { labels: { agent: AGENT, kind: 'message', action: 'unknown' }, value: 1 },
    ]);
  });
});

describe('an update page that cannot be read at all', () => {
  const wire = new CannedServer();
  const TOKEN = 'canned-token-abcdef';
  let client: MessagingClient;
  beforeAll(async () => {
    await wire.start();
    client = new MessagingClient({
      token: TOKEN,
      baseUrl: `${wire.origin}/agent/v1`,
      rateLimit: false,
      maxRetries: 0,
      autoDiscover: false,
    });
  });
  afterAll(async () => {
    await client.close();
    await wire.close();
  });

  it('fails the poll without its body in the failure, the error or the WARN line', async () => {
    // A page whose envelope does not fit (a negative offset), the human's text and the token in it.
    const page = {
      entry: [
        {
          id: 'demo',
          changes: [
            {
              field: 'messages',
              value: {
                messages: [
                  { from: 'user:1001', id: 'wamid.1', timestamp: '1', type: 'text', text: { body: CANARY } },
                ],
              },
            },
          ],
        },
      ],
      next_offset: -1,
      echoed: TOKEN,
    };
    wire.canned = { status: 200, contentType: 'application/json', body: Buffer.from(JSON.stringify(page)) };
    const acts = createActivities(new Map([[AGENT, client]]), { pollTicketsDir: false });
    const { env, lines } = capturing();

    const out = await settle(
      env.run(acts.pollUpdates, { agentKey: AGENT, offset: 0, limit: 50, timeoutSeconds: 0 }),
    );

    expect(out.ok).toBe(false);
    if (out.ok) return;
    const err = out.err as Error;
    // Everything a logger or a failure converter could walk: own enumerable members and the message.
    const shown = JSON.stringify({ ...err, message: err.message, stack: err.stack });
    for (const secret of [CANARY, TOKEN]) {
      expect(shown).not.toContain(secret);
      expect(lines.join('\n')).not.toContain(secret);
    }
    expect(lines.some((l) => l.includes('Activity failed'))).toBe(true);
    // Where and what kind, never a value.
    expect(err.message).toMatch(/next_offset: too_small/);

    // The client's own error still has the raw body for a caller who asks for it (token redacted).
    const direct = await settle(client.getUpdates({ offset: 0, timeout: 0 }));
    expect(direct.ok).toBe(false);
    if (direct.ok) return;
    expect(direct.err).toBeInstanceOf(UnexpectedResponseError);
    const body = (direct.err as UnexpectedResponseError).body;
    expect(body).toContain(CANARY);
    expect(body).not.toContain(TOKEN);
    expect(Object.keys(direct.err as object)).not.toContain('body');
  });
});
