/**
 * The LLM assistant example (examples/assistant/), as the issue bounds it and the README shows it:
 * at most 25 lines of bot code, at most 10 lines a test case, and the README's blocks are the
 * example's own code (the bot verbatim, its approval test as written).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const bot = read('examples/assistant/bot.ts');
const tests = read('examples/assistant/bot.test.ts');
const readme = read('README.md');

/** Lines of code: not blank, not a comment of their own. */
const code = (text: string) => text.split('\n').filter((l) => l.trim() && !/^\s*\/\//.test(l));

/** Each `test(...)` case of `text`: its title and the lines of its body. */
function cases(text: string): { title: string; body: string[] }[] {
  const found: { title: string; body: string[] }[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const m = /^(\s*)test\('([^']+)'/.exec(line);
    if (!m) return;
    const end = lines.findIndex((l, j) => j > i && l === `${m[1]}});`);
    found.push({ title: m[2], body: lines.slice(i + 1, end) });
  });
  return found;
}

describe('the assistant example', () => {
  it('is at most 25 lines of bot code', () => {
    expect(code(bot).length).toBeLessThanOrEqual(25);
  });

  it('has every case the issue asks for, each at most 10 lines', () => {
    const all = cases(tests);
    expect(all.length).toBeGreaterThanOrEqual(9);
    for (const c of all) expect([c.title, code(c.body.join('\n')).length <= 10]).toEqual([c.title, true]);
  });

  it('is in the README as it is: the bot verbatim, and its approval test', () => {
    expect(readme).toContain(`\`\`\`ts\n${bot}\`\`\``);
    const approved = cases(tests).find((c) => c.title === 'a booking approved in the chat runs once')!;
    expect(readme).toContain(`test('${approved.title}', async () => {\n${approved.body.join('\n')}\n});`);
  });
});
