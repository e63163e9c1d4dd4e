/**
 * The Prometheus text exposition format (version 0.0.4) of a registry's families: `# HELP`,
 * `# TYPE`, one line per sample, histogram buckets cumulative with `+Inf`, `_sum` and `_count`.
 */
import type { Family, Labels } from './metrics-registry';

/** The Content-Type of the format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** A label value escaped: backslash, double quote and line feed. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** Help text escaped: backslash and line feed. */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A sample value: integers as such, `+Inf`, `-Inf`, `NaN`. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function labelText(labels: Labels, extra?: [string, string]): string {
  const pairs = Object.entries(labels);
  if (extra) pairs.push(extra);
  if (pairs.length === 0) return '';
  return `{${pairs.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',')}}`;
}

/** The exposition text of `families`, ending with a line feed (empty when there are none). */
export function formatPrometheus(families: Family[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.kind}`);
    for (const s of family.series) {
      if (family.kind !== 'histogram') {
        lines.push(`${family.name}${labelText(s.labels)} ${formatValue(s.value)}`);
        continue;
      }
      family.buckets!.forEach((bound, i) => {
        lines.push(
          `${family.name}_bucket${labelText(s.labels, ['le', formatValue(bound)])} ${s.bucketCounts![i]}`,
        );
      });
      lines.push(`${family.name}_bucket${labelText(s.labels, ['le', '+Inf'])} ${s.count}`);
      lines.push(`${family.name}_sum${labelText(s.labels)} ${formatValue(s.value)}`);
      lines.push(`${family.name}_count${labelText(s.labels)} ${s.count}`);
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
