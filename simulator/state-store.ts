/**
 * Writing the simulator's state file (simulator/state-file.ts says what it keeps): atomic (a temp
 * file, fsync, rename), coalesced (at most one write per `writeDelayMs` after a change) and final
 * on close; media bytes once each, in files named by their SHA-256.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, open, rename, rm, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Platform } from './platform';
import type { MediaRecord } from './state';
import {
  agentSnapshot,
  DEFAULT_WRITE_DELAY_MS,
  mediaDirOf,
  readStateFile,
  restore,
  type RestoredState,
} from './state-file';
import { SHA256_NAME, STATE_FORMAT, STATE_VERSION, type StateFile } from './state-schema';

/**
 * Keeps one simulator's state in a file: {@link load} at start, then {@link watch} for changes,
 * {@link close} last.
 */
export class StateStore {
  private others: Record<string, unknown> = {};
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;
  private closed = false;
  private readonly written = new Set<string>();
  private lastError: Error | undefined;

  constructor(
    readonly file: string,
    private readonly platform: Platform,
    private readonly writeDelayMs = DEFAULT_WRITE_DELAY_MS,
    private readonly onError: (err: Error) => void = (err) => console.error(`simulator: ${err.message}`),
  ) {}

  /** Reads the file (if any) into the platform. Throws {@link SimulatorStateError}. */
  load(): RestoredState {
    const state = readStateFile(this.file);
    if (!state) return { file: this.file, resumed: false, messages: 0, unclean: false };
    const served = new Set(this.platform.agents.map((a) => a.config.id));
    this.others = Object.fromEntries(Object.entries(state.agents).filter(([id]) => !served.has(id)));
    const restored = restore(this.platform, this.file, state);
    const mediaDir = mediaDirOf(this.file);
    if (existsSync(mediaDir)) {
      for (const name of readdirSync(mediaDir)) {
        if (SHA256_NAME.test(name)) this.written.add(name);
        else if (name.endsWith('.tmp')) rmSync(join(mediaDir, name), { force: true });
      }
    }
    // Leftovers of a write cut short.
    for (const name of readdirSync(dirname(this.file))) {
      if (name.startsWith(`.${basename(this.file)}.`) && name.endsWith('.tmp')) {
        rmSync(join(dirname(this.file), name), { force: true });
      }
    }
    return restored;
  }

  /** From now on, every change of an agent's state is written within `writeDelayMs`. */
  watch(): void {
    for (const agent of this.platform.agents) agent.events.on('change', () => this.changed());
  }

  /** Something changed that the agents' change events do not announce (e.g. a media upload). */
  changed(): void {
    if (this.closed) return;
    this.dirty = true;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush(false);
    }, this.writeDelayMs);
  }

  /** Writes the current state now (after any write under way); resolves when it is on disk. */
  flush(clean = false): Promise<void> {
    this.dirty = false;
    const snapshot = this.snapshot(clean);
    this.writing = this.writing.then(() =>
      this.write(snapshot).then(
        () => (this.lastError = undefined),
        (err: Error) => {
          // Reported once per run of failures; the next change tries again.
          if (!this.lastError) this.onError(new Error(`cannot write ${this.file}: ${err.message}`));
          this.lastError = err;
          this.dirty = true;
        },
      ),
    );
    return this.writing;
  }

  /** The last write, marked clean; nothing is written after it. Throws if it fails. */
  async close(): Promise<void> {
    if (this.closed) return this.writing;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush(true);
    this.closed = true;
    if (this.lastError) throw new Error(`cannot write ${this.file}: ${this.lastError.message}`);
  }

  private snapshot(clean: boolean): { json: string; media: MediaRecord[] } {
    const agents: Record<string, unknown> = { ...this.others };
    const media: MediaRecord[] = [];
    for (const agent of this.platform.agents) {
      agents[agent.config.id] = agentSnapshot(agent);
      media.push(...agent.media.values());
    }
    const state: StateFile = {
      format: STATE_FORMAT,
      version: STATE_VERSION,
      savedAt: Date.now(),
      simNow: this.platform.clock.now(),
      clean,
      agents,
    };
    return { json: JSON.stringify(state), media };
  }

  private async write(snapshot: { json: string; media: MediaRecord[] }): Promise<void> {
    const mediaDir = mediaDirOf(this.file);
    const keep = new Set<string>();
    for (const record of snapshot.media) {
      keep.add(record.sha256);
      if (this.written.has(record.sha256)) continue;
      await mkdir(mediaDir, { recursive: true, mode: 0o700 });
      await atomicWrite(join(mediaDir, record.sha256), record.bytes);
      this.written.add(record.sha256);
    }
    await atomicWrite(this.file, snapshot.json);
    // Bytes no item refers to any more (deleted or expired media), once the JSON no longer names them.
    if (this.written.size > keep.size) {
      for (const name of await readdir(mediaDir).catch(() => [] as string[])) {
        if (keep.has(name) || !SHA256_NAME.test(name)) continue;
        await rm(join(mediaDir, name), { force: true });
        this.written.delete(name);
      }
    }
  }
}

/**
 * Replaces `file` with `data` so that a reader (or a crash at any moment) sees the old content or
 * the new, never a part: a temp file in the same folder, fsync, rename over the file.
 */
export async function atomicWrite(file: string, data: string | Buffer): Promise<void> {
  // The conversation: readable by its user only, like the file itself.
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
