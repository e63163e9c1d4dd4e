/**
 * The simulator's state on disk (`SimulatorOptions.stateFile`), so that `npm start` resumes the
 * same conversation: per agent the update buffer with its sequence counter, the sent and inbound
 * records (receipts, read state, when each inbound message was delivered and read, so the read
 * check goes on across a restart), and the media items (metadata in the JSON, bytes in files of
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
 *
 * This file: reading, validating and applying the file at start (its schema in
 * simulator/state-schema.ts); writing it is simulator/state-store.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Platform } from './platform';
import type { AgentState, MediaRecord } from './state';
import {
  AgentSnapshotSchema,
  describeIssues,
  StateFileSchema,
  type AgentSnapshot,
  type StateFile,
} from './state-schema';
import { AmsflowError } from '../core/amsflow-error';
import { AmsflowErrorCodes } from '../core/error-codes';

export { STATE_FORMAT, STATE_VERSION, StateFileSchema, type StateFile } from './state-schema';
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

export function agentSnapshot(agent: AgentState): AgentSnapshot {
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
export function restore(platform: Platform, file: string, state: StateFile): RestoredState {
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
