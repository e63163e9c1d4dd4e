/**
 * The data dir holds every chat (the embedded server's database, the demo's conversation): it is
 * readable by its user only, including one an earlier amsflow left open (issue 37, point 4). The
 * start says so only when it had to change something. Real files, real modes.
 */
import { chmodSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cleanups } from '../../worker/cleanups';
import { loadConfig } from '../../worker/config';
import { makeDataPrivate, prepareDataDir } from '../../worker/data-dir';

const modeOf = (path: string) => (statSync(path).mode & 0o7777).toString(8);

/** One `prepareDataDir` as `npm start` runs it (the demo: embedded simulator and server); its log. */
async function prepare(dataDir: string): Promise<string[]> {
  const logs: string[] = [];
  const cleanups = new Cleanups();
  prepareDataDir(loadConfig({ AMSFLOW_DATA_DIR: dataDir }), (line) => logs.push(line), cleanups, []);
  await cleanups.run();
  return logs;
}

describe('the data dir', () => {
  const root = mkdtempSync(join(tmpdir(), 'amsflow-data-dir-'));

  it('makes an open data dir and the database files of an earlier start private, and says so once', async () => {
    const dataDir = join(root, 'open');
    const demo = join(dataDir, 'demo');
    mkdirSync(demo, { recursive: true });
    const db = join(demo, 'temporal.db');
    // An earlier start's files, as Temporal's dev server made them under umask 022.
    writeFileSync(join(demo, 'simulator.json'), '{}', { mode: 0o600 });
    for (const suffix of ['', '-wal', '-shm']) writeFileSync(`${db}${suffix}`, 'x', { mode: 0o644 });
    for (const dir of [dataDir, demo]) chmodSync(dir, 0o755);
    chmodSync(db, 0o644);

    const first = await prepare(dataDir);
    expect([dataDir, demo].map(modeOf)).toEqual(['700', '700']);
    expect(['', '-wal', '-shm'].map((suffix) => modeOf(`${db}${suffix}`))).toEqual(['600', '600', '600']);
    const said = first.filter((line) => line.includes('readable by their user only'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`${dataDir} (was 0755)`);
    expect(said[0]).toContain(`${db}-wal (was 0644)`);

    const second = await prepare(dataDir);
    expect(second.filter((line) => line.includes('readable by their user only'))).toEqual([]);
  });

  it('is made private when it is new, and says nothing', async () => {
    const dataDir = join(root, 'new', '.amsflow');
    expect((await prepare(dataDir)).filter((line) => line.includes('readable'))).toEqual([]);
    expect(modeOf(dataDir)).toBe('700');
  });

  it('leaves a shared folder (sticky bit, like /tmp) as it is', () => {
    const shared = join(root, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    expect(makeDataPrivate([shared], undefined)).toEqual({ changed: [], failed: [] });
    expect(modeOf(shared)).toBe('1777');
  });
});
