import { cdfChart, escapeXml, lineChart } from '../../bench/svg';

/** Checks that every tag is closed in order (a tiny XML well-formedness check); returns the tag names. */
function balancedTags(svg: string): string[] {
  const stack: string[] = [];
  const names: string[] = [];
  for (const m of svg.matchAll(/<(\/?)([a-zA-Z][\w-]*)([^>]*?)(\/?)>/g)) {
    const [, closing, name, , selfClosing] = m;
    names.push(name);
    if (selfClosing) continue;
    if (closing) expect(stack.pop()).toBe(name);
    else stack.push(name);
  }
  expect(stack).toEqual([]);
  // Outside tags, no raw '<' or unescaped '&'.
  const text = svg.replace(/<[^>]*>/g, '');
  expect(text).not.toMatch(/<|&(?!(amp|lt|gt|quot|apos);)/);
  return names;
}

function viewBox(svg: string): { width: number; height: number } {
  const [, w, h] = /viewBox="0 0 (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)"/.exec(svg)!;
  return { width: Number(w), height: Number(h) };
}

/** Every coordinate of every path and circle. */
function coordinates(svg: string): { x: number; y: number }[] {
  const out: { x: number; y: number }[] = [];
  for (const [, d] of svg.matchAll(/<path d="([^"]+)"/g))
    for (const [, x, y] of d.matchAll(/[ML](-?[\d.]+),(-?[\d.]+)/g)) out.push({ x: Number(x), y: Number(y) });
  for (const [, x, y] of svg.matchAll(/<circle cx="(-?[\d.]+)" cy="(-?[\d.]+)"/g))
    out.push({ x: Number(x), y: Number(y) });
  return out;
}

const gridY = (svg: string, value: number) =>
  Number(new RegExp(`class="grid-y" data-value="${value}" x1="[\\d.]+" y1="([\\d.]+)"`).exec(svg)![1]);

describe('bench/svg', () => {
  it('draws a step chart with series, legend and a reference line at the right y', () => {
    const svg = lineChart({
      title: 'Polls & sends per minute <scaled>',
      subtitle: 'windowMs 6000',
      xLabel: 'time (s)',
      yLabel: 'requests in the last window',
      series: [
        { name: 'polls', step: true, points: [0, 1, 2, 3, 4].map((x) => ({ x, y: x * 3 })) },
        { name: 'sends', points: [0, 2, 4].map((x) => ({ x, y: 20 })), dashed: true, markers: true },
      ],
      refLines: [{ y: 12, label: 'limit 12/min' }],
      yRange: [0, 24],
    });
    const tags = balancedTags(svg);
    expect(tags[0]).toBe('svg');
    expect(svg).toContain('Polls &amp; sends per minute &lt;scaled&gt;');
    expect(svg).toContain('>polls</text>');
    expect(svg).toContain('>sends</text>');
    expect(svg).toContain('limit 12/min');
    const { width, height } = viewBox(svg);
    const points = coordinates(svg);
    expect(points.length).toBeGreaterThan(8);
    for (const p of points) {
      expect(p.x).toBeGreaterThanOrEqual(0);
      expect(p.x).toBeLessThanOrEqual(width);
      expect(p.y).toBeGreaterThanOrEqual(0);
      expect(p.y).toBeLessThanOrEqual(height);
    }
    const [, refY] = /class="ref-line" data-value="12" x1="[\d.]+" y1="([\d.]+)"/.exec(svg)!;
    // Ticks of 0..24 are 0, 5, ..., 20: 12 is 12/20 of the way from the 0 line to the 20 line.
    expect(Number(refY)).toBeCloseTo(gridY(svg, 0) + ((gridY(svg, 20) - gridY(svg, 0)) * 12) / 20, 0);
    // The series at y=20 lies above the reference line (smaller SVG y).
    const sends = /data-name="sends"><path d="M[\d.]+,([\d.]+)/.exec(svg)!;
    expect(Number(sends[1])).toBeLessThan(Number(refY));
  });

  it('keeps out-of-range points inside the plot and handles empty series', () => {
    const svg = lineChart({
      title: 't',
      xLabel: 'x',
      yLabel: 'y',
      series: [
        {
          name: 'wild',
          points: [
            { x: -5, y: 1e9 },
            { x: 50, y: -3 },
          ],
        },
        { name: 'empty', points: [] },
      ],
      xRange: [0, 10],
      yRange: [0, 10],
    });
    balancedTags(svg);
    const { width, height } = viewBox(svg);
    for (const p of coordinates(svg)) {
      expect(p.x).toBeGreaterThanOrEqual(0);
      expect(p.x).toBeLessThanOrEqual(width);
      expect(p.y).toBeGreaterThanOrEqual(0);
      expect(p.y).toBeLessThanOrEqual(height);
    }
  });

  it('draws CDFs of two samples on a log x axis, with n, p50 and p99 in the legend', () => {
    const amsflow = Array.from({ length: 100 }, (_, i) => 80 + i);
    const plain = Array.from({ length: 100 }, (_, i) => 3 + i / 50);
    const svg = cdfChart({
      title: 'human → reply accepted',
      samples: [
        { name: 'amsflow', values: amsflow },
        { name: 'plain loop', values: plain },
      ],
      logX: true,
    });
    balancedTags(svg);
    expect(svg).toContain('amsflow (n=100, p50 130 ms, p99 179 ms)');
    expect(svg).toContain('plain loop (n=100');
    expect(svg).toMatch(/class="grid-x" data-value="2"/);
    expect(svg).toMatch(/class="grid-x" data-value="200"/);
    const [, p50y] = /class="ref-line" data-value="50" x1="[\d.]+" y1="([\d.]+)"/.exec(svg)!;
    expect(Number(p50y)).toBeCloseTo((gridY(svg, 0) + gridY(svg, 100)) / 2, 0);
    const { width, height } = viewBox(svg);
    for (const p of coordinates(svg)) {
      expect(p.x).toBeGreaterThanOrEqual(0);
      expect(p.x).toBeLessThanOrEqual(width);
      expect(p.y).toBeGreaterThanOrEqual(0);
      expect(p.y).toBeLessThanOrEqual(height);
    }
  });

  it('escapes text', () => {
    expect(escapeXml(`a<b & "c" 'd'>`)).toBe('a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;');
  });
});
