/**
 * The last part of a child process's output, kept in memory so that a start that fails can show
 * what the child said. Reading never stops while the child lives: a child writing to a pipe
 * nobody reads blocks, and one whose pipe is closed dies of SIGPIPE.
 */
import type { Readable } from 'node:stream';

/** Output kept by {@link tailOf}. */
export interface OutputTail {
  /** The last `maxBytes` of everything read so far (cut at a line start when it was cut). */
  text(): string;
  /** Resolves once every stream has ended, or after `waitMs`, whichever is first. */
  settled(waitMs: number): Promise<void>;
}

/** Keeps the last `maxBytes` of `streams`, which no longer hold this process's event loop open. */
export function tailOf(streams: (Readable | null | undefined)[], maxBytes = 16 * 1024): OutputTail {
  let kept = '';
  const ended: Promise<void>[] = [];
  for (const stream of streams) {
    if (!stream) continue;
    (stream as Readable & { unref?: () => void }).unref?.();
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      kept += chunk;
      if (kept.length > 2 * maxBytes) kept = kept.slice(-maxBytes);
    });
    stream.on('error', () => undefined);
    ended.push(new Promise((done) => stream.once('close', () => done())));
  }
  return {
    text() {
      if (kept.length <= maxBytes) return kept;
      const cut = kept.slice(-maxBytes);
      const line = cut.indexOf('\n');
      return line >= 0 ? cut.slice(line + 1) : cut;
    },
    async settled(waitMs) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(ended),
        new Promise((done) => {
          timer = setTimeout(done, waitMs);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}

/** `text` indented as a quote for an error message, or a note that there was none. */
export function quoted(text: string): string {
  const trimmed = text.trimEnd();
  if (!trimmed) return '(it printed nothing)';
  return trimmed
    .split('\n')
    .map((line) => `  | ${line}`)
    .join('\n');
}
