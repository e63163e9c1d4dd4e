import { spawn } from 'node:child_process';
import { collectLines } from './output-lines';

describe('collectLines', () => {
  it('keeps a line whole when the child writes it in pieces, on both streams', async () => {
    // The child writes each line's first half, and its end only once this process has read the
    // halves: every line reaches the pipe in two chunks.
    const script = `
      process.stdout.write('first half of out');
      process.stderr.write('first half of err');
      process.stdin.once('data', () => {
        process.stdout.write(' and its end\\n\\n');
        process.stderr.write(' and its end\\n');
        process.stdout.write('last line without newline');
        process.exit(0);
      });`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
    const lines = collectLines(child);
    const halves: string[] = [];
    const readHalf = (chunk: Buffer) => {
      halves.push(chunk.toString());
      if (halves.join('').includes('out') && halves.join('').includes('err')) child.stdin.end('go\n');
    };
    child.stdout.once('data', readHalf);
    child.stderr.once('data', readHalf);
    await new Promise((done) => child.once('close', done));
    expect(halves.sort()).toEqual(['first half of err', 'first half of out']);
    expect([...lines].sort()).toEqual([
      'first half of err and its end',
      'first half of out and its end',
      'last line without newline',
    ]);
  });
});
