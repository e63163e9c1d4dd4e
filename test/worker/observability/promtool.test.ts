/**
 * The whole `/metrics` endpoint of a real worker process (amsflow's metrics and the Temporal
 * runtime's, in one registry) passes Prometheus's own linter, `promtool check metrics`: counter
 * names end in `_total` (runtime-metrics.ts adds it to the runtime's), help texts and types are there. The
 * scrape is taken after a conversation, so that the runtime's counters exist. promtool comes from
 * `npm run setup` (scripts/promtool.ts); without it the test fails, saying how to get it.
 */
import { spawnSync } from 'node:child_process';
import { findPromtool, PROMTOOL_HINT } from '../../../scripts/promtool';
import { freePort } from '../../../worker/dev-server';
import { engineSuite } from '../../engine/support';
import { waitFor } from '../../support/temporal';

jest.setTimeout(120_000);

function promtool(): string {
  const path = findPromtool();
  if (!path) throw new Error(`promtool is missing: ${PROMTOOL_HINT}`);
  return path;
}

/** `promtool check metrics` on `text`: its exit status and what it printed. */
function checkMetrics(text: string): { status: number | null; output: string } {
  const run = spawnSync(promtool(), ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

describe('promtool check metrics', () => {
  const suite = engineSuite();

  it('finds what it should: a counter without _total fails the check (the check can fail)', () => {
    const bad = '# HELP temporal_request A counter.\n# TYPE temporal_request counter\ntemporal_request 1\n';
    const result = checkMetrics(bad);
    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(/temporal_request counter metrics should have "_total" suffix/);
  });

  it('passes on the whole endpoint of a worker that has answered a human', async () => {
    promtool();
    const port = await freePort();
    const engine = await suite.start({ windowMs: 2000, env: { AMSFLOW_METRICS_PORT: String(port) } });
    await engine.startWorker();
    await engine.human('echo promtool please');
    await waitFor('the echo reply', async () => (await engine.sentTexts()).includes('promtool please'), {
      timeoutMs: 60_000,
    });
    const text = await waitFor(
      "the runtime's counters in the scrape",
      async () => {
        const body = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        return /^temporal_request_total\b/m.test(body) && /^amsflow_sends_total\b/m.test(body) && body;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    const families = new Set([...text.matchAll(/^# TYPE (\S+) (\w+)$/gm)].map((m) => `${m[1]} ${m[2]}`));
    expect([...families].filter((f) => f.endsWith(' counter') && !/_total counter$/.test(f))).toEqual([]);
    const result = checkMetrics(text);
    expect(result).toEqual({ status: 0, output: '' });
  });
});
