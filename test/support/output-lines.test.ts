import { spawn } from 'node:child_process';
import { collectLines } from './output-lines';

describe('collectLines', () => {
  it('keeps a line whole when the child writes it in pieces, on both streams', async () => {
    // Each line goes out in two writes with a pause between, so the pipe delivers it in two chunks.
    const script = `
      const pause = () => new Promise((r) => setTimeout(r, 30));
      (async () => {
        process.stdout.write('first half of out');
        process.stderr.write('first half of err');
        await pause();
        process.stdout.write(' and its end\\n\\n');
        process.stderr.write(' and its end\\n');
        await pause();
        process.stdout.write('last line without newline');
      })();`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines = collectLines(child);
    await new Promise((done) => child.once('close', done));
    expect([...lines].sort()).toEqual([
      'first half of err and its end',
      'first half of out and its end',
      'last line without newline',
    ]);
  });
});
