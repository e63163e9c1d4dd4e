/**
 * A watched file counts as changed when what it holds may have: written in place (modification
 * time, size) or replaced by a rename (inode); a read that only moves its access time does not.
 * The pure rule, then a real file watched on a short interval.
 */
import { mkdtempSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contentMayHaveChanged, watchFileContent } from '../../worker/file-watch';
import { waitFor } from '../support/temporal';

const stat = { mtimeMs: 1000, size: 10, ino: 7 };

describe('contentMayHaveChanged', () => {
  it('is false for the same modification time, size and inode (an access time moved)', () => {
    expect(contentMayHaveChanged({ ...stat }, stat)).toBe(false);
  });

  it.each([
    ['a new modification time', { mtimeMs: 2000 }],
    ['a new size', { size: 11 }],
    ['another inode (replaced by a rename)', { ino: 8 }],
  ])('is true for %s', (_what, change) => {
    expect(contentMayHaveChanged({ ...stat, ...change }, stat)).toBe(true);
  });
});

describe('watchFileContent', () => {
  const dir = mkdtempSync(join(tmpdir(), 'amsflow-file-watch-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('calls back for a write and a replacement, not for reads or a moved access time', async () => {
    const file = join(dir, 'watched.toml');
    writeFileSync(file, 'one');
    // A modification time in whole seconds, which setting the access time below keeps exactly (a
    // Date from statSync would drop the sub-millisecond part: a real change of mtime).
    const mtime = new Date(Math.floor(Date.now() / 1000) * 1000 - 5000);
    utimesSync(file, mtime, mtime);
    let changes = 0;
    const stop = watchFileContent(file, 50, () => changes++);
    try {
      // Reads and an access time set by hand: the stat differs, the content does not.
      const later = new Date(Date.now() + 60_000);
      for (let i = 0; i < 3; i++) {
        readFileSync(file);
        utimesSync(file, new Date(later.getTime() + i * 1000), mtime);
        await new Promise((r) => setTimeout(r, 120));
      }
      expect(statSync(file).mtime).toEqual(mtime);
      expect(changes).toBe(0);
      writeFileSync(file, 'two, longer');
      await waitFor('the write seen', async () => (changes === 1 ? true : undefined), { timeoutMs: 5000 });
      const next = join(dir, 'next.toml');
      writeFileSync(next, 'two, longer');
      renameSync(next, file);
      await waitFor('the replacement seen', async () => (changes === 2 ? true : undefined), {
        timeoutMs: 5000,
      });
    } finally {
      stop();
    }
  });
});
