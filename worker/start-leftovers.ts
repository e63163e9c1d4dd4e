/**
 * What a start creates under the data dir, removed again when the start fails: a failed first
 * start must leave nothing that the next start would read as a previous run ("resuming" an empty
 * chat, Temporal data "resumed"). What was there before the start is a previous run's and is kept.
 */
import { existsSync, rmSync } from 'node:fs';

/** Files that come with a SQLite database (its write-ahead log). */
const SQLITE_COMPANIONS = ['-wal', '-shm', '-journal'];

/**
 * Notes which of `paths` do not exist yet (files or folders, outermost first); the function it
 * returns removes those again. Call it only once everything that writes there has stopped.
 */
export function noteFreshPaths(paths: (string | undefined)[]): () => void {
  const fresh = paths.filter((p): p is string => p !== undefined && !existsSync(p));
  return () => {
    for (const path of fresh) {
      rmSync(path, { recursive: true, force: true });
      if (path.endsWith('.db'))
        for (const suffix of SQLITE_COMPANIONS) rmSync(`${path}${suffix}`, { force: true });
    }
  };
}
