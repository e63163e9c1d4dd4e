/**
 * The simulator's state on disk (`SimulatorOptions.stateFile`), so that `npm start` resumes the
 * same conversation: per agent the update buffer with its sequence counter, the sent and inbound
 * records (receipts, read state), and the media items (metadata in the JSON, bytes in files of
 * their own named by SHA-256, in `<state file without .json>-media/`).
 *
 * Not kept: the request log, pending faults, request counters, rate-limit windows and the typing
 * indicator (diagnostics and seconds-long state). Timers still due (a `delivered` receipt) are
 * armed again on load.
 *
 * Writes are atomic (a temp file, fsync, rename), coalesced (at most one per `writeDelayMs` after a
 * change) and final on close. A file that cannot be read or does not validate stops the start with
 * a {@link SimulatorStateError} naming it; nothing is ever dropped silently.
 *
 * A file whose last writer did not close (`clean: false`: killed, crashed) may lack the last
 * moments before the end, which an agent may already have polled past. Its sequence counter is
 * then moved {@link SEQ_GAP_AFTER_CRASH} ahead, so a new message is never numbered below an
 * offset the agent holds (offsets are not contiguous anyway: read messages are skipped).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, open, rename, rm, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import type { Platform } from './platform';
import type { AgentState, MediaRecord } from './state';
import { AmsflowError } from '../core/amsflow-error';
import { AmsflowErrorCodes } from '../core/error-codes';

export const STATE_FORMAT = 'amsflow-simulator-state';
export const STATE_VERSION = 1;
/** How far the sequence counter moves after an unclean end (see the module comment). */
export const SEQ_GAP_AFTER_CRASH = 1000;
/** Default coalescing delay of writes after a change, in real ms. */
export const DEFAULT_WRITE_DELAY_MS = 200;

/** The state file cannot be used: unreadable, not JSON, or not a valid state. Nothing was started. */
export class SimulatorStateError extends AmsflowError {
  readonly code = AmsflowErrorCodes.simulatorState;
  /**
   * @param reset How to start afresh; default: delete the file and its media folder.
   */
  constructor(
    readonly file: string,
    readonly problem: string,
    reset = `delete ${file} and ${mediaDirOf(file)} (the chat history is lost)`,
  ) {
    super(
      `Cannot resume the simulator from ${file}: ${problem}. To start afresh, ${reset}; ` +
        'to keep the history, repair the file or restore it from a backup.',
    );
  }
}

const int = z.number().int();
/** Media bytes are kept in files named by their SHA-256. */
const SHA256_NAME = /^[0-9a-f]{64}$/;
const receiptStatus = z.enum(['sent', 'delivered', 'read']);

const InboundMessageSchema = z
  .object({
    from: z.string(),
    id: z.string().min(1),
    timestamp: z.string(),
    type: z.string().min(1),
    context: z.object({ from: z.string().optional(), id: z.string() }).passthrough().optional(),
  })
  .passthrough();

const SeqEntrySchema = z.discriminatedUnion('kind', [
  z.object({
    seq: int.positive(),
    at: z.number(),
    kind: z.literal('message'),
    message: InboundMessageSchema,
  }),
  z.object({
    seq: int.positive(),
    at: z.number(),
    kind: z.literal('status'),
    status: z.object({
      id: z.string().min(1),
      status: receiptStatus,
      timestamp: z.string(),
      recipient_id: z.string(),
    }),
  }),
]);

const SentRecordSchema = z.object({
  id: z.string().min(1),
  to: z.string(),
  type: z.string().min(1),
  body: z.record(z.unknown()),
  acceptedAt: z.number(),
  realAt: z.number(),
  receipts: z.array(receiptStatus),
  seq: int.nonnegative(),
  quoted: z.object({ id: z.string(), from: z.string().optional() }).optional(),
  media: z.object({ mime_type: z.string(), sha256: z.string(), filename: z.string().optional() }).optional(),
});

const InboundRecordSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  markedRead: z.boolean(),
  offset: int.nonnegative(),
  message: InboundMessageSchema,
});

const MediaMetaSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9._-]+$/),
  mimeType: z.string().min(1),
  sha256: z.string().regex(SHA256_NAME),
  size: int.nonnegative(),
  filename: z.string().optional(),
  origin: z.enum(['agent', 'human']),
  createdAt: z.number(),
  expiresAt: z.number(),
});

const AgentSnapshotSchema = z
  .object({
    nextSeq: int.positive(),
    accepted: int.nonnegative(),
    entries: z.array(SeqEntrySchema),
    sent: z.array(SentRecordSchema),
    inbound: z.array(InboundRecordSchema),
    media: z.array(MediaMetaSchema),
  })
  .superRefine((agent, ctx) => {
    let last = 0;
    for (const entry of agent.entries) {
      if (entry.seq <= last || entry.seq >= agent.nextSeq) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: ['entries'],
          message: `sequence numbers must increase and stay below nextSeq (${agent.nextSeq}); found ${entry.seq} after ${last}`,
        });
        return;
      }
      last = entry.seq;
    }
    const ids = new Set<string>();
    for (const record of [...agent.sent, ...agent.inbound]) {
      if (ids.has(record.id)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: ['sent'],
          message: `message id ${record.id} twice`,
        });
        return;
      }
      ids.add(record.id);
    }
  });
type AgentSnapshot = z.infer<typeof AgentSnapshotSchema>;

export const StateFileSchema = z.object({
  format: z.literal(STATE_FORMAT),
  version: z.literal(STATE_VERSION),
  /** Real epoch ms of the write. */
  savedAt: z.number(),
  /** Simulated epoch ms of the write; simulated time never goes back across a restart. */
  simNow: z.number(),
  /** Written by a close: nothing happened after it. */
  clean: z.boolean(),
  /** By agent id. Agents the simulator does not serve this time are kept as they are. */
  agents: z.record(z.unknown()),
});
export type StateFile = z.infer<typeof StateFileSchema>;

/** What a start found in the state file. */
export interface RestoredState {
  file: string;
  /** False when there was no file: a fresh start. */
  resumed: boolean;
  /** Messages (both directions) in the restored conversations. */
  messages: number;
  /** The last writer did not close (see the module comment). */
  unclean: boolean;
}

/** The folder of the media bytes that belong to `stateFile`. */
export function mediaDirOf(stateFile: string): string {
  return join(dirname(stateFile), `${basename(stateFile).replace(/\.json$/, '')}-media`);
}

const describeIssues = (error: z.ZodError): string =>
  error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(top)'}: ${issue.message}`)
    .join('; ');

/** Reads and validates the file; `undefined` when there is none. Throws {@link SimulatorStateError}. */
export function readStateFile(file: string): StateFile | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SimulatorStateError(file, `it cannot be read (${(err as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SimulatorStateError(file, `it is not valid JSON (${(err as Error).message})`);
  }
  const parsed = StateFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new SimulatorStateError(file, `it is not a simulator state file (${describeIssues(parsed.error)})`);
  }
  return parsed.data;
}

function agentSnapshot(agent: AgentState): AgentSnapshot {
  return {
    nextSeq: agent.nextSeq,
    accepted: agent.accepted,
    entries: agent.entries,
    sent: agent.sent,
    inbound: agent.inbound,
    media: [...agent.media.values()].map((m) => ({
      id: m.id,
      mimeType: m.mimeType,
      sha256: m.sha256,
      size: m.bytes.length,
      ...(m.filename === undefined ? {} : { filename: m.filename }),
      origin: m.origin,
      createdAt: m.createdAt,
      expiresAt: m.expiresAt,
    })),
  };
}

/**
 * Applies the file to the platform's agents (before it serves anything). Every agent's part is
 * validated and its media bytes read before any agent is touched.
 */
function restore(platform: Platform, file: string, state: StateFile): RestoredState {
  const mediaDir = mediaDirOf(file);
  const loaded: { agent: AgentState; snapshot: AgentSnapshot; media: MediaRecord[] }[] = [];
  for (const agent of platform.agents) {
    const raw = state.agents[agent.config.id];
    if (raw === undefined) continue;
    const parsed = AgentSnapshotSchema.safeParse(raw);
    if (!parsed.success) {
      throw new SimulatorStateError(
        file,
        `agent "${agent.config.id}" is not valid (${describeIssues(parsed.error)})`,
      );
    }
    const media = parsed.data.media.map((meta) => {
      const path = join(mediaDir, meta.sha256);
      let bytes: Buffer;
      try {
        bytes = readFileSync(path);
      } catch (err) {
        throw new SimulatorStateError(
          file,
          `the bytes of media ${meta.id} cannot be read from ${path} (${(err as Error).message})`,
        );
      }
      if (createHash('sha256').update(bytes).digest('hex') !== meta.sha256) {
        throw new SimulatorStateError(
          file,
          `${path} does not hold the bytes of media ${meta.id} (SHA-256 differs)`,
        );
      }
      const { size: _size, ...record } = meta;
      return { ...record, bytes };
    });
    loaded.push({ agent, snapshot: parsed.data, media });
  }
  let messages = 0;
  for (const { agent, snapshot, media } of loaded) {
    agent.clear();
    agent.nextSeq = snapshot.nextSeq + (state.clean ? 0 : SEQ_GAP_AFTER_CRASH);
    agent.accepted = snapshot.accepted;
    agent.entries = snapshot.entries;
    agent.sent = snapshot.sent;
    for (const record of agent.sent) agent.sentById.set(record.id, record);
    agent.inbound = snapshot.inbound;
    for (const record of agent.inbound) agent.inboundById.set(record.id, record);
    for (const record of media) agent.media.set(record.id, record);
    messages += agent.sent.length + agent.inbound.length;
  }
  // Simulated time never goes back: a faster clock may have run ahead of real time.
  const behind = state.simNow - platform.clock.now();
  if (behind > 0) platform.clock.advance(behind);
  platform.resumeRestored();
  return { file, resumed: true, messages, unclean: !state.clean };
}

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
      await mkdir(mediaDir, { recursive: true });
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
  await mkdir(dirname(file), { recursive: true });
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
