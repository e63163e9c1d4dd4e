/**
 * Writes a generated section into a Markdown file: between its two markers when they are there,
 * else appended under `heading`; the rest of the file (the written analysis) is left alone. The
 * file is then formatted by Prettier, as `npm run lint` checks it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export async function writeMarkdownSection(
  path: string,
  markers: { start: string; end: string },
  heading: string,
  body: string,
): Promise<void> {
  const section = `${markers.start}\n\n${body.trim()}\n\n${markers.end}`;
  const old = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const start = old.indexOf(markers.start);
  const end = old.indexOf(markers.end);
  const next =
    start >= 0 && end > start
      ? old.slice(0, start) + section + old.slice(end + markers.end.length)
      : `${old.trimEnd()}\n\n${heading}\n\n${section}\n`;
  // Loaded here, not at the top: only the commands that write reports need it.
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(path)) ?? {};
  writeFileSync(path, await prettier.format(next, { ...options, parser: 'markdown' }));
}
