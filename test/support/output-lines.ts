/**
 * A child process's output as whole lines. A pipe hands output over in chunks that need not end
 * at a line's end, and stdout and stderr arrive interleaved: each stream is split into lines on
 * its own, so a line written in one piece is one entry, never two halves.
 */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Appends every non-empty line `child` writes to stdout or stderr to `into`; returns `into`. */
export function collectLines(child: ChildProcess, into: string[] = []): string[] {
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      if (line) into.push(line);
    });
  }
  return into;
}
