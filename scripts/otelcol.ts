/**
 * The OpenTelemetry Collector that test/worker/tracing-collector.test.ts exports traces to: the Go
 * module in tools/otelcol (the collector's `otelcol` with its OTLP receiver and contrib's file
 * exporter, versions pinned by its go.mod and go.sum). `npm run cluster:setup`
 * (scripts/cluster-setup.ts) builds it into a folder outside the clone, beside the Temporal
 * server's, named by the collector's release and a digest of the module's files: a fresh clone on
 * the same machine reuses it, and a changed module is built anew. The test only finds it, and fails
 * when it is missing.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ClusterToolsMissingError, clusterToolsDir, isExecutable } from './cluster-tools';

/** The Go module's folder in the clone. */
export const OTELCOL_MODULE_DIR = resolve(__dirname, '..', 'tools', 'otelcol');

/** The Go module every collector component comes at the release of. */
export const OTELCOL_GO_MODULE = 'go.opentelemetry.io/collector/otelcol';

/** The collector release tools/otelcol/go.mod pins (`0.161.0`). */
export function otelcolVersion(): string {
  const goMod = readFileSync(join(OTELCOL_MODULE_DIR, 'go.mod'), 'utf8');
  const match = new RegExp(`^\\s*${OTELCOL_GO_MODULE.replace(/\./g, '\\.')} v(\\S+)$`, 'm').exec(goMod);
  if (!match) throw new Error(`${OTELCOL_MODULE_DIR}/go.mod requires no ${OTELCOL_GO_MODULE}`);
  return match[1];
}

/** A digest of the module's files (go.mod, go.sum, the Go sources): what the binary is built from. */
export function otelcolDigest(): string {
  const hash = createHash('sha256');
  const files = readdirSync(OTELCOL_MODULE_DIR)
    .filter((name) => name === 'go.mod' || name === 'go.sum' || name.endsWith('.go'))
    .sort();
  for (const name of files) {
    hash
      .update(`${name}\0`)
      .update(readFileSync(join(OTELCOL_MODULE_DIR, name)))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 12);
}

/** The folder the collector is built into (beside {@link clusterToolsDir}). */
export function otelcolDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(dirname(clusterToolsDir(env)), `otelcol-v${otelcolVersion()}-${otelcolDigest()}`);
}

/** The collector binary below {@link otelcolDir}, whether or not it exists. */
export function otelcolPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(otelcolDir(env), 'bin', 'amsflow-otelcol');
}

/** The collector binary, or {@link ClusterToolsMissingError} when it has not been built. */
export function findOtelcol(env: NodeJS.ProcessEnv = process.env): string {
  const path = otelcolPath(env);
  if (!isExecutable(path)) {
    throw new ClusterToolsMissingError([`OpenTelemetry Collector (built from tools/otelcol): ${path}`]);
  }
  return path;
}
