/** Reading Prometheus text in tests. */

/** The sum of the samples of `name` whose labels include `labels`, in Prometheus text. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let total = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (m && m[1] === name && wanted.every((w) => (m[3] ?? '').split(',').includes(w))) total += Number(m[4]);
  }
  return total;
}
