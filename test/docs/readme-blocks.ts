/** The README's examples, as written: what test/docs and test/start take from it. */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');

/** The first ts block after `heading` in README.md. */
export function readmeBlock(heading: string): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf(heading));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error(`README.md has no ts block under "${heading}"`);
  return block[1];
}
