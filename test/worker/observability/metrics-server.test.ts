/**
 * The worker's metrics and health endpoint answers only requests meant for it: a page on a
 * rebound DNS name, another site's page and an embedding page are refused (403) on every path;
 * Prometheus and probes (no Origin) and the names in AMSFLOW_METRICS_ALLOWED_HOSTS are served.
 */
import { MetricsRegistry } from '../../../worker/observability/metrics-registry';
import { startMetricsServer, type MetricsServer } from '../../../worker/observability/metrics-server';
import { Readiness } from '../../../worker/observability/readiness';
import { ConfigError, loadConfig } from '../../../worker/config';
import { ALL_REFUSED, probeStrangers, rawRequest } from '../../support/local-request-probe';

const servers: MetricsServer[] = [];
async function serve(host: string, allowedHosts?: string[]): Promise<MetricsServer> {
  const registry = new MetricsRegistry();
  registry.counter('amsflow_probe_total', 'a counter').inc({}, 1);
  const server = await startMetricsServer({
    port: 0,
    host,
    registry,
    readiness: new Readiness(),
    allowedHosts,
  });
  servers.push(server);
  return server;
}
afterAll(() => Promise.all(servers.map((s) => s.close())));

describe('the metrics endpoint', () => {
  it.each(['/metrics', '/healthz', '/readyz'])(
    'refuses strangers on %s, serves its own callers',
    async (path) => {
      const server = await serve('127.0.0.1');
      const probe = await probeStrangers(server.port, 'GET', path);
      expect(probe.strangers).toEqual(ALL_REFUSED);
      for (const body of probe.bodies) expect(body).not.toContain('amsflow_probe_total');
      expect(probe.own.status).toBe(path === '/readyz' ? 503 : 200);
      if (path === '/metrics') expect(probe.own.body).toContain('amsflow_probe_total 1');
    },
  );

  it('on every interface: any IP address and the allowed names, nothing else', async () => {
    const server = await serve('0.0.0.0', ['amsflow-worker-1', '.svc.cluster.local']);
    const get = (host: string) => rawRequest(server.port, 'GET', '/metrics', { host });
    expect((await get(`10.0.0.7:${server.port}`)).status).toBe(200);
    expect((await get(`localhost:${server.port}`)).status).toBe(200);
    expect((await get(`amsflow-worker-1:${server.port}`)).status).toBe(200);
    expect((await get('w1.amsflow.svc.cluster.local')).status).toBe(200);
    const refused = await get(`evil.example:${server.port}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatch(/AMSFLOW_METRICS_ALLOWED_HOSTS/);
  });

  it('takes AMSFLOW_METRICS_ALLOWED_HOSTS as comma-separated names, each checked', () => {
    expect(
      loadConfig({ AMSFLOW_METRICS_ALLOWED_HOSTS: 'a, .b.example' }).observability.metricsAllowedHosts,
    ).toEqual(['a', '.b.example']);
    expect(loadConfig({}).observability.metricsAllowedHosts).toBeUndefined();
    expect(() => loadConfig({ AMSFLOW_METRICS_ALLOWED_HOSTS: 'ok,http://no' })).toThrow(ConfigError);
    expect(() => loadConfig({ AMSFLOW_METRICS_ALLOWED_HOSTS: 'ok,http://no' })).toThrow(
      /AMSFLOW_METRICS_ALLOWED_HOSTS: "http:\/\/no" is not a host name/,
    );
  });
});
