/**
 * The real OpenTelemetry Collector (tools/otelcol, built by `npm run cluster:setup`; missing, it
 * fails with ClusterToolsMissingError, never skips), started on a free loopback port with a
 * configuration written here: the OTLP receiver over HTTP only, and the file exporter writing each
 * export request it received as one OTLP/JSON line, flushed every 100 ms. Its own telemetry is
 * quiet: logs at warn, no metrics endpoint.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, portOpen } from '../../worker/port-probes';
import { findOtelcol } from '../../scripts/otelcol';
import { waitFor } from './temporal';

export interface RunningCollector {
  /** `http://127.0.0.1:<port>`: what OTEL_EXPORTER_OTLP_ENDPOINT names. */
  endpoint: string;
  /** The file the exporter writes. */
  outputFile: string;
  /** The export requests written so far: complete lines only. */
  requests(): string[];
  /** The collector's own stdout and stderr so far. */
  logs(): string;
  /** SIGTERM (the exporter flushes and closes its file), then waits for the exit (SIGKILL after 15 s). */
  stop(): Promise<void>;
}

/** Starts the collector with its files in `dir`; resolves once its OTLP/HTTP port accepts connections. */
export async function startOtelCollector(dir: string): Promise<RunningCollector> {
  const binary = findOtelcol();
  const port = await freePort();
  const outputFile = join(dir, 'traces.jsonl');
  const configFile = join(dir, 'otelcol.yaml');
  writeFileSync(
    configFile,
    [
      'receivers:',
      '  otlp:',
      '    protocols:',
      '      http:',
      `        endpoint: 127.0.0.1:${port}`,
      'exporters:',
      '  file:',
      `    path: ${JSON.stringify(outputFile)}`,
      '    format: json',
      '    flush_interval: 100ms',
      'service:',
      '  telemetry:',
      '    logs:',
      '      level: warn',
      '    metrics:',
      '      level: none',
      '  pipelines:',
      '    traces:',
      '      receivers: [otlp]',
      '      exporters: [file]',
      '',
    ].join('\n'),
  );
  const child = spawn(binary, ['--config', `file:${configFile}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let logs = '';
  child.stdout.on('data', (c: Buffer) => (logs += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (logs += c.toString('utf8')));
  let exited: string | undefined;
  const exit = new Promise<void>((resolve) => {
    // 'close': after the exit and the end of its output.
    child.once('close', (code, signal) => {
      exited = `exited (${signal ?? code})`;
      resolve();
    });
    child.once('error', (err) => {
      exited = `could not run: ${err.message}`;
      resolve();
    });
  });
  const stop = async () => {
    if (exited !== undefined) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exit;
    clearTimeout(killer);
  };
  // A collector that exits (a configuration it refuses, a port taken meanwhile) fails the start at once.
  const died = exit.then(() => {
    throw new Error(`The collector (${binary}) ${exited} before listening on 127.0.0.1:${port}:\n${logs}`);
  });
  try {
    await Promise.race([
      waitFor(`the collector (${binary}) to listen on 127.0.0.1:${port}`, () => portOpen(port, '127.0.0.1'), {
        timeoutMs: 20_000,
        intervalMs: 50,
      }),
      died,
    ]);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    outputFile,
    requests() {
      if (!existsSync(outputFile)) return [];
      const lines = readFileSync(outputFile, 'utf8').split('\n');
      // The last piece is empty, or a line still being written.
      return lines.slice(0, -1).filter((line) => line.trim() !== '');
    },
    logs: () => logs,
    stop,
  };
}
