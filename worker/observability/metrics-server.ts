/**
 * The observability endpoint of a worker process: `/metrics` (amsflow's registry in the
 * Prometheus text format, the Temporal runtime's own metrics among its families), `/healthz` (the
 * process is alive) and `/readyz` (see readiness.ts), on one port. Like every local server of
 * amsflow it answers only requests that name it in their Host (its address, `localhost` on
 * loopback, or `allowedHosts`) and come from no other site's page (core/local-request.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsRegistry } from './metrics-registry';
import { formatPrometheus, PROMETHEUS_CONTENT_TYPE } from './prometheus-format';
import type { Readiness } from './readiness';
import { AmsflowError } from '../../core/amsflow-error';
import { checkLocalRequest } from '../../core/local-request';
import { AmsflowErrorCodes } from '../../core/error-codes';

/** The port is taken: names the variable that moves it. */
export class MetricsPortInUseError extends AmsflowError {
  readonly code = AmsflowErrorCodes.metricsPortInUse;
  constructor(readonly port: number) {
    super(
      `The metrics port ${port} is already in use (another amsflow worker on this host?): set ` +
        'AMSFLOW_METRICS_PORT to another port, 0 for any free port, or off.',
    );
  }
}

/** Options of {@link startMetricsServer}. */
export interface MetricsServerOptions {
  port: number;
  host: string;
  registry: MetricsRegistry;
  readiness: Readiness;
  /** Called before each scrape reads the registry (it drains the Temporal runtime's metrics into it). */
  beforeScrape?: () => void;
  /** Host names scrapers reach it by besides its address (`AMSFLOW_METRICS_ALLOWED_HOSTS`). */
  allowedHosts?: readonly string[];
}

/** A listening endpoint. */
export interface MetricsServer {
  /** `http://<host>:<port>` (127.0.0.1 when bound to every interface). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the endpoint; throws {@link MetricsPortInUseError} when the port is taken. */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const policy = { listenHost: options.host, allowedHosts: options.allowedHosts ?? [] };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const json = (status: number, body: unknown) => {
      res.writeHead(status, {
        'content-type': 'application/json',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      res.end(`${JSON.stringify(body)}\n`);
    };
    const refused = checkLocalRequest(policy, req.headers);
    if (refused) return json(403, { error: `${refused.reason} (AMSFLOW_METRICS_ALLOWED_HOSTS)` });
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { error: 'GET only' });
    if (path === '/healthz') return json(200, { status: 'ok' });
    if (path === '/readyz') {
      void options.readiness.check().then(
        (report) => json(report.ready ? 200 : 503, report),
        (err: Error) => json(503, { ready: false, reason: err.message }),
      );
      return;
    }
    if (path === '/metrics') {
      options.beforeScrape?.();
      res.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' });
      res.end(formatPrometheus(options.registry.collect()));
      return;
    }
    json(404, { error: 'not found: try /metrics, /healthz or /readyz' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new MetricsPortInUseError(options.port) : err),
    );
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
