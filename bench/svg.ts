/**
 * A tiny, dependency-free SVG chart writer for the bench's plots: pure functions that return an
 * SVG document as a string. Two kinds: a line/step chart of named series with optional
 * horizontal reference lines (`lineChart`), and a distribution (CDF) chart of latency samples
 * (`cdfChart`). Both have a title, axis labels with units, ticks, a legend and distinct colours
 * (Okabe–Ito, readable by colour-blind readers).
 */

/** One (x, y) point of a series, in data units. */
export interface Point {
  x: number;
  y: number;
}

/** A named series of a line chart. */
export interface Series {
  name: string;
  points: Point[];
  /** CSS colour; default the next colour of the palette. */
  color?: string;
  /** Draw as steps (horizontal, then vertical), as a count over time changes. Default false. */
  step?: boolean;
  dashed?: boolean;
  /** A dot on every point (for a few measured points, e.g. RSS per agent count). Default false. */
  markers?: boolean;
}

/** A horizontal line across the plot at `y`, labelled at its right end (e.g. "limit 12/min"). */
export interface ReferenceLine {
  y: number;
  label: string;
  /** Default dark red. */
  color?: string;
}

/** Title, axis labels (with units) and size, common to both charts. */
export interface ChartFrame {
  title: string;
  /** A smaller grey line under the title (setup, scale, sample size). */
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  /** Default 760 × 440. */
  width?: number;
  height?: number;
}

/** Options of {@link lineChart}. */
export interface LineChartOptions extends ChartFrame {
  series: Series[];
  refLines?: ReferenceLine[];
  /** Logarithmic x axis (values ≤ 0 are drawn at its left end). Default false. */
  logX?: boolean;
  /** Axis ranges; default the data's (and the reference lines'), y from 0 when all are positive. */
  xRange?: [number, number];
  yRange?: [number, number];
}

/** Options of {@link cdfChart}: two or more latency samples compared. */
export interface CdfOptions extends Omit<ChartFrame, 'yLabel' | 'xLabel'> {
  samples: { name: string; values: number[]; color?: string }[];
  /** Default `latency (ms)`. */
  xLabel?: string;
  /** Unit added to the p50/p99 of each sample in the legend. Default `ms`. */
  unit?: string;
  /** Logarithmic x axis: samples of different orders of magnitude side by side. Default false. */
  logX?: boolean;
}

/** The palette (Okabe–Ito): series take these in order unless they name a colour. */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];

const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';

/** Escapes text for an SVG element or attribute. */
export function escapeXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
  );
}

const r1 = (v: number) => Math.round(v * 10) / 10;
const fmt = (v: number) => String(Math.abs(v) >= 1e4 && v % 1000 === 0 ? `${v / 1000}k` : +v.toPrecision(6));

interface Scale {
  domain: [number, number];
  ticks: number[];
  /** Data value → fraction of the axis, 0..1 (clamped). */
  at(v: number): number;
}

function linearScale([lo, hi]: [number, number], fixed: boolean): Scale {
  if (!(hi > lo)) [lo, hi] = [lo - 1, hi + 1];
  const raw = (hi - lo) / 6;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  if (!fixed) [lo, hi] = [Math.floor(lo / step) * step, Math.ceil(hi / step) * step];
  const ticks: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(+t.toPrecision(12));
  return { domain: [lo, hi], ticks, at: (v) => Math.min(1, Math.max(0, (v - lo) / (hi - lo))) };
}

function logScale([lo, hi]: [number, number], fixed: boolean): Scale {
  lo = lo > 0 ? lo : hi > 0 ? hi / 10 : 1;
  hi = hi > lo ? hi : lo * 10;
  if (!fixed) {
    // Widen to the nearest 1, 2 or 5 × 10^k on each side.
    const nice = (v: number) => [1, 2, 5, 10].map((m) => m * 10 ** Math.floor(Math.log10(v)));
    lo = nice(lo)
      .filter((t) => t <= lo * (1 + 1e-9))
      .at(-1)!;
    hi = nice(hi).find((t) => t >= hi * (1 - 1e-9))!;
  }
  const decades = Math.log10(hi / lo);
  const ticks: number[] = [];
  for (let p = Math.floor(Math.log10(lo)); p <= Math.ceil(Math.log10(hi)); p++) {
    for (const m of decades > 3 ? [1] : [1, 2, 5]) {
      const t = +(m * 10 ** p).toPrecision(12);
      if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) ticks.push(t);
    }
  }
  const [l0, l1] = [Math.log10(lo), Math.log10(hi)];
  return {
    domain: [lo, hi],
    ticks,
    at: (v) => (v > 0 ? Math.min(1, Math.max(0, (Math.log10(v) - l0) / (l1 - l0))) : 0),
  };
}

function extent(values: number[]): [number, number] | undefined {
  const finite = values.filter(Number.isFinite);
  return finite.length ? [Math.min(...finite), Math.max(...finite)] : undefined;
}

/** A line or step chart of several named series, with optional horizontal reference lines. */
export function lineChart(o: LineChartOptions): string {
  const width = o.width ?? 760;
  const height = o.height ?? 440;
  const refLines = o.refLines ?? [];
  const all = o.series.flatMap((s) => s.points);
  const xs = extent(all.map((p) => p.x).filter((x) => !o.logX || x > 0)) ?? [0, 1];
  const ysData = extent([...all.map((p) => p.y), ...refLines.map((l) => l.y)]) ?? [0, 1];
  const ys: [number, number] = [
    Math.min(0, ysData[0]),
    ysData[1] + (ysData[1] - Math.min(0, ysData[0])) * 0.05,
  ];
  const xScale = o.logX ? logScale(o.xRange ?? xs, !!o.xRange) : linearScale(o.xRange ?? xs, !!o.xRange);
  const yScale = linearScale(o.yRange ?? ys, !!o.yRange);

  // Legend: rows of swatch + name under the title, wrapped to the width.
  const legend: { name: string; color: string; dashed?: boolean; x: number; row: number }[] = [];
  let lx = 72;
  let row = 0;
  o.series.forEach((s, i) => {
    const w = 48 + s.name.length * 7;
    if (lx + w > width - 16 && lx > 72) [lx, row] = [72, row + 1];
    legend.push({
      name: s.name,
      color: s.color ?? PALETTE[i % PALETTE.length],
      dashed: s.dashed,
      x: lx,
      row,
    });
    lx += w;
  });
  const top = (o.subtitle ? 50 : 36) + (legend.length ? (row + 1) * 18 + 10 : 0);
  const [left, right, bottom] = [72, width - 24, height - 52];
  const px = (x: number) => r1(left + xScale.at(x) * (right - left));
  const py = (y: number) => r1(bottom - yScale.at(y) * (bottom - top));

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" ${FONT} font-size="12">`,
    `<title>${escapeXml(o.title)}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${left}" y="22" font-size="16" font-weight="bold" fill="#222">${escapeXml(o.title)}</text>`,
  ];
  if (o.subtitle) out.push(`<text x="${left}" y="40" fill="#666">${escapeXml(o.subtitle)}</text>`);
  for (const l of legend) {
    const y = (o.subtitle ? 50 : 36) + l.row * 18 + 8;
    const dash = l.dashed ? ' stroke-dasharray="6 4"' : '';
    out.push(
      `<g class="legend"><line x1="${r1(l.x)}" y1="${y}" x2="${r1(l.x + 24)}" y2="${y}" stroke="${l.color}" stroke-width="3"${dash}/>` +
        `<text x="${r1(l.x + 30)}" y="${y + 4}" fill="#222">${escapeXml(l.name)}</text></g>`,
    );
  }
  // Grid and ticks.
  for (const t of yScale.ticks) {
    const y = py(t);
    out.push(
      `<line class="grid-y" data-value="${t}" x1="${left}" y1="${y}" x2="${right}" y2="${y}" stroke="#e5e5e5"/>`,
      `<text x="${left - 6}" y="${r1(y + 4)}" text-anchor="end" fill="#444">${fmt(t)}</text>`,
    );
  }
  for (const t of xScale.ticks) {
    const x = px(t);
    out.push(
      `<line class="grid-x" data-value="${t}" x1="${x}" y1="${top}" x2="${x}" y2="${bottom}" stroke="#f0f0f0"/>`,
      `<text x="${x}" y="${bottom + 16}" text-anchor="middle" fill="#444">${fmt(t)}</text>`,
    );
  }
  out.push(
    `<line x1="${left}" y1="${bottom}" x2="${right}" y2="${bottom}" stroke="#444"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${bottom}" stroke="#444"/>`,
    `<text x="${r1((left + right) / 2)}" y="${height - 14}" text-anchor="middle" fill="#222">${escapeXml(o.xLabel)}</text>`,
    `<text transform="translate(16 ${r1((top + bottom) / 2)}) rotate(-90)" text-anchor="middle" fill="#222">${escapeXml(o.yLabel)}</text>`,
  );
  for (const l of refLines) {
    const y = py(l.y);
    const color = l.color ?? '#B22222';
    out.push(
      `<g class="ref"><line class="ref-line" data-value="${l.y}" x1="${left}" y1="${y}" x2="${right}" y2="${y}" stroke="${color}" stroke-width="1.5" stroke-dasharray="8 4"/>` +
        `<text x="${right - 4}" y="${r1(y - 5)}" text-anchor="end" fill="${color}">${escapeXml(l.label)}</text></g>`,
    );
  }
  o.series.forEach((s, i) => {
    const color = legend[i].color;
    const pts = s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
    if (pts.length === 0) return;
    let d = `M${px(pts[0].x)},${py(pts[0].y)}`;
    for (let k = 1; k < pts.length; k++) {
      if (s.step) d += ` L${px(pts[k].x)},${py(pts[k - 1].y)}`;
      d += ` L${px(pts[k].x)},${py(pts[k].y)}`;
    }
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    out.push(
      `<g class="series" data-name="${escapeXml(s.name)}"><path d="${d}" fill="none" stroke="${color}" stroke-width="2"${dash} stroke-linejoin="round"/>`,
    );
    if (s.markers)
      for (const p of pts) out.push(`<circle cx="${px(p.x)}" cy="${py(p.y)}" r="3.5" fill="${color}"/>`);
    out.push('</g>');
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** The p-th percentile as bench/latency.ts computes it (nearest rank, no interpolation). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

/**
 * A distribution chart: for each sample, the share of values at or below x (a step CDF), with
 * grey reference lines at p50 and p99; the legend gives each sample's n, p50 and p99.
 */
export function cdfChart(o: CdfOptions): string {
  const unit = o.unit ?? 'ms';
  const series: Series[] = o.samples.map((s) => {
    const sorted = [...s.values].filter(Number.isFinite).sort((a, b) => a - b);
    const points: Point[] = sorted.length ? [{ x: sorted[0], y: 0 }] : [];
    sorted.forEach((v, i) => points.push({ x: v, y: (100 * (i + 1)) / sorted.length }));
    const p = (q: number) => fmt(+percentile(sorted, q).toFixed(1));
    const name = sorted.length
      ? `${s.name} (n=${sorted.length}, p50 ${p(50)} ${unit}, p99 ${p(99)} ${unit})`
      : `${s.name} (no data)`;
    return { name, points, step: true, color: s.color };
  });
  return lineChart({
    ...o,
    xLabel: o.xLabel ?? 'latency (ms)',
    yLabel: 'share at or below (%)',
    series,
    yRange: [0, 100],
    refLines: [
      { y: 50, label: 'p50', color: '#999999' },
      { y: 99, label: 'p99', color: '#999999' },
    ],
  });
}
