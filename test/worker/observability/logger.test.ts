/**
 * amsflow's logger on an injected stream: JSON lines with agent key, workflow id and run id,
 * tokens and bearer credentials redacted wherever they appear, bodies only at debug level with
 * `AMSFLOW_LOG_BODIES=1`, and the level filter.
 */
import { AmsflowLogger, type LoggerOptions } from '../../../worker/observability/logger';
import { registerSecret, REDACTED } from '../../../core/redact';

const TOKEN = 'tok-0123456789abcdef';
registerSecret(TOKEN);

function capture(options: Partial<LoggerOptions> = {}) {
  const lines: string[] = [];
  const logger = new AmsflowLogger({
    format: 'json',
    level: 'debug',
    stream: { write: (l: string) => lines.push(l) },
    now: () => new Date('2026-01-02T03:04:05.000Z'),
    ...options,
  });
  return { logger, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('the logger', () => {
  it('writes one JSON object per line, with the agent key from a workflow id and the run id', () => {
    const { logger, lines, parsed } = capture();
    logger.info('Workflow started', {
      workflowId: 'agent:shop:msg:wamid.1',
      workflowRunId: 'r-1',
      attempt: 1,
    });
    logger.warn('poll failed', { agentKey: 'shop', workflowId: 'agent:shop', runId: 'r-2' });
    expect(lines.every((l) => l.endsWith('\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
    expect(parsed()).toEqual([
      {
        time: '2026-01-02T03:04:05.000Z',
        level: 'info',
        msg: 'Workflow started',
        agentKey: 'shop',
        workflowId: 'agent:shop:msg:wamid.1',
        runId: 'r-1',
        attempt: 1,
      },
      {
        time: '2026-01-02T03:04:05.000Z',
        level: 'warn',
        msg: 'poll failed',
        agentKey: 'shop',
        workflowId: 'agent:shop',
        runId: 'r-2',
      },
    ]);
  });

  it('never writes a token or a bearer credential, wherever it hides', () => {
    const { logger, lines } = capture();
    const err = new Error(`request failed with token ${TOKEN}`);
    logger.error(`Authorization: Bearer ${TOKEN}`, {
      error: err,
      headers: { authorization: 'Bearer something-else-secret' },
      token: 'any-token-value',
      nested: [{ url: `https://x/agent/v1?t=${TOKEN}` }],
    });
    logger.info('Authorization: Bearer abc.def-ghi');
    const text = lines.join('');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('something-else-secret');
    expect(text).not.toContain('any-token-value');
    expect(text).not.toContain('abc.def-ghi');
    expect(text).toContain(`Bearer ${REDACTED}`);
    expect(lines).toHaveLength(2);
  });

  it('keeps message bodies only at debug level and only when asked to', () => {
    const plain = capture();
    plain.logger.debug('send: accepted', { agentKey: 'a', body: 'my secret plan', bodies: ['x'] });
    plain.logger.info('page', { agentKey: 'a', text: 'hello there' });
    expect(plain.lines.join('')).not.toMatch(/my secret plan|hello there|"bodies"/);

    const bodies = capture({ bodies: true });
    bodies.logger.debug('send: accepted', { agentKey: 'a', body: 'my secret plan' });
    bodies.logger.info('page', { agentKey: 'a', body: 'not at info' });
    expect(bodies.parsed()[0]).toMatchObject({ body: 'my secret plan' });
    expect(bodies.parsed()[1]).not.toHaveProperty('body');
  });

  it('filters by level and writes pretty lines on request', () => {
    const { logger, lines } = capture({ level: 'warn', format: 'pretty' });
    logger.info('not shown');
    logger.debug('not shown either');
    logger.warn('No workflows registered, not polling for workflow tasks');
    logger.warn('shown', { workflowId: 'agent:x', n: 1 });
    expect(lines).toEqual(['2026-01-02T03:04:05.000Z [WARN] shown (agent=x workflow=agent:x) {"n":1}\n']);
  });
});
