/**
 * Watching a file the worker reads again when it changes (the agents file, the Temporal profile):
 * Node's `watchFile` calls back whenever the file's stat differs, a read that moves its access
 * time included; only a change of what it holds (its modification time, size or inode: written in
 * place, or replaced by a rename) counts.
 */
import { unwatchFile, watchFile, type Stats } from 'node:fs';

/** Whether the file's content may have changed between two stats (pure). */
export function contentMayHaveChanged(
  current: Pick<Stats, 'mtimeMs' | 'size' | 'ino'>,
  previous: Pick<Stats, 'mtimeMs' | 'size' | 'ino'>,
): boolean {
  return (
    current.mtimeMs !== previous.mtimeMs || current.size !== previous.size || current.ino !== previous.ino
  );
}

/**
 * Calls `onChange` when `file`'s content may have changed (checked every `intervalMs`; a file that
 * appears or disappears counts); returns what stops the watch. Keeps no process alive.
 */
export function watchFileContent(file: string, intervalMs: number, onChange: () => void): () => void {
  const listener = (current: Stats, previous: Stats) => {
    if (contentMayHaveChanged(current, previous)) onChange();
  };
  watchFile(file, { interval: intervalMs, persistent: false }, listener);
  return () => unwatchFile(file, listener);
}
