/**
 * Poll tickets: which process on this machine holds the latest poll activity attempt of each
 * agent, so that after a poll activity timed out the next one can tell whether the poll it may
 * have left open at the service can still be open there.
 *
 * The poll lease (protocol/agent.ts) makes the agent's next poll wait, after a timed-out poll
 * activity, until a poll that attempt may have started has ended at the service: 22 s at the
 * spec's 25-s polls, since a worker cut off from everything leaves its request open there until
 * the poll's own timeout. But the common cause of a timed-out poll is a worker process that died
 * (a crash, a kill, a deploy), and a process that ended has no request open anywhere: the kernel
 * closed its connections. So each attempt writes its ticket (`<workflow id>/<run id>/<activity
 * id>`) and its process's mark to a small file per agent before it polls, and the next attempt,
 * handed the lost one's ticket, reads it:
 * - `self`: the lost attempt ran in this process, whose open polls of the agent are ended and
 *   waited for anyway (open-polls.ts): no wait beyond that;
 * - `ended`: its process has certainly ended (activities/process-mark.ts): only the close grace,
 *   for the connection's close on its way to the service;
 * - `unknown` (another machine, another PID namespace, a live process cut off, no file, another
 *   ticket): the lease's whole wait, as before.
 * A wrong file can only make the verdict `unknown`. The entry also holds the attempt's task token:
 * a worker that starts on the same machine gives up the attempts of ended processes at once
 * ({@link PollTickets.endedAttempts}, worker/ended-polls.ts), so that their agents need not wait
 * for the heartbeat timeout either. The close grace counts from when a process on this machine
 * first saw the owner ended (`endedSeenAt`, written into the entry): a worker that saw it at its
 * start has waited it out by the time the agent's next poll runs. The verdict is pure; the files
 * are this module's, one directory per user (mode 0700: a task token completes its attempt).
 */
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { certainlyEnded, ownMark, sameProcess, type ProcessMark } from './process-mark';

export type LostPollVerdict = 'self' | 'ended' | 'unknown';

export interface TicketEntry {
  ticket: string;
  owner: ProcessMark;
  /** The attempt as Temporal knows it, so that a worker that sees its process ended can give it up. */
  attempt?: AttemptRef;
  /** When a process here first saw `owner` ended (epoch ms): the close grace counts from then. */
  endedSeenAt?: number;
}

/** A poll activity attempt as Temporal's RespondActivityTaskFailed takes it, and its workflow run. */
export interface AttemptRef {
  namespace: string;
  /**
   * The namespace's id at Temporal (DescribeNamespace: one per cluster and namespace; a name or
   * an address is not enough, the embedded server may change port): a worker gives up only the
   * attempts of its own cluster's namespace. Absent in tickets of workers that did not know it
   * (and written before 2026-12-07): never given up.
   */
  namespaceId?: string;
  /** The attempt's task token, base64. */
  taskToken: string;
  /**
   * The agent workflow run that scheduled it: its sticky queue (the dead worker's) is reset
   * before the attempt is given up. Absent in tickets written before 2026-11-29 (third session).
   */
  workflowId?: string;
  runId?: string;
}

const TicketEntrySchema = z.object({
  ticket: z.string(),
  owner: z.object({ boot: z.string(), pidNs: z.string(), pid: z.number().int(), start: z.string() }),
  attempt: z
    .object({
      namespace: z.string(),
      namespaceId: z.string().optional(),
      taskToken: z.string(),
      workflowId: z.string().optional(),
      runId: z.string().optional(),
    })
    .optional(),
  endedSeenAt: z.number().optional(),
});

/** A recorded attempt whose process has certainly ended, recorded `ageMs` ago, first seen ended at `endedSeenAt`. */
export interface EndedAttempt extends AttemptRef {
  ticket: string;
  ageMs: number;
  endedSeenAt: number;
}

/** What became of the lost attempt `lost`, from the agent's ticket file as read (`entry`). */
export function lostPollVerdict(
  entry: TicketEntry | undefined,
  lost: string,
  me: ProcessMark,
  ended: (mark: ProcessMark, me: ProcessMark) => boolean = certainlyEnded,
): LostPollVerdict {
  if (!entry || entry.ticket !== lost) return 'unknown';
  if (sameProcess(entry.owner, me)) return 'self';
  return ended(entry.owner, me) ? 'ended' : 'unknown';
}

/**
 * How long the next poll waits, from its start, after the lost attempt of `verdict`: none after
 * one of this process (open-polls.ts has ended and waited for it), the close grace after one
 * whose process ended, the lease's whole wait (`leaseWaitMs`) otherwise.
 */
export function waitAfterLost(
  verdict: LostPollVerdict,
  leaseWaitMs: number,
  closeGraceMs: number,
  /** For `ended`: how long ago its process was first seen ended (the grace already past). */
  sinceEndedMs = 0,
): number {
  if (verdict === 'self') return 0;
  if (verdict !== 'ended') return leaseWaitMs;
  return Math.max(0, Math.min(closeGraceMs, leaseWaitMs) - Math.max(0, sinceEndedMs));
}

/** The default directory of the ticket files: one per user under the system's temporary directory. */
export function defaultTicketsDir(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return join(tmpdir(), `amsflow-polls-${uid}`);
}

/** The ticket files of one directory, written and read by this process. */
export class PollTickets {
  private readonly me: ProcessMark | undefined;
  /** Whether the directory is there and this user's alone (checked once; see {@link ready}). */
  private usable: boolean | undefined;
  /** Writes begun, for their temporary files' names. */
  private parts = 0;

  /** `dir`: false for none (every verdict `unknown`). */
  constructor(
    private readonly dir: string | false = defaultTicketsDir(),
    me: ProcessMark | undefined = ownMark(),
  ) {
    this.me = dir === false ? undefined : me;
  }

  /**
   * Records that the attempt `ticket` of `agentKey` is this process's; best effort. Written off
   * the event loop (every poll records; a synchronous write and rename held the worker's
   * workflow activations back by about a millisecond each); the poll awaits it before its request.
   */
  async record(agentKey: string, ticket: string, attempt?: AttemptRef): Promise<void> {
    if (!this.me || !this.ready()) return;
    const entry: TicketEntry = { ticket, owner: this.me, ...(attempt ? { attempt } : {}) };
    try {
      await this.writeSoon(this.fileOf(agentKey), entry);
    } catch {
      // Unrecorded: the next attempt's verdict is `unknown`, and it waits the lease's whole wait.
    }
  }

  /**
   * What became of the lost attempt `lost` of `agentKey`, and, when its process ended, how long
   * ago a process here first saw that (now, if none had: noted for the next reader).
   */
  lostPoll(
    agentKey: string,
    lost: string,
    now = Date.now(),
  ): { verdict: LostPollVerdict; sinceEndedMs: number } {
    if (!this.me || !this.ready()) return { verdict: 'unknown', sinceEndedMs: 0 };
    const file = this.fileOf(agentKey);
    const entry = this.readFile(file);
    const verdict = lostPollVerdict(entry, lost, this.me);
    if (verdict !== 'ended') return { verdict, sinceEndedMs: 0 };
    return { verdict, sinceEndedMs: now - this.seenEnded(file, entry!, now) };
  }

  /**
   * The attempts recorded within `maxAgeMs` whose process has certainly ended (none of this
   * process): their polls are closed, and Temporal may be told so at once instead of after
   * their heartbeat timeout. The files of ended processes older than that are removed: their
   * attempts are over at Temporal, and an agent key never polled again (a test's) would keep
   * its file for ever.
   */
  endedAttempts(maxAgeMs: number, now = Date.now()): EndedAttempt[] {
    const me = this.me;
    if (!me || !this.ready()) return [];
    let files: string[];
    try {
      files = readdirSync(this.dir as string).filter((f) => f.endsWith('.json'));
    } catch {
      return [];
    }
    return files.flatMap((name) => {
      const file = join(this.dir as string, name);
      const writtenAt = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
      if (writtenAt === undefined) return [];
      const ageMs = now - writtenAt;
      const entry = this.readFile(file);
      if (!entry || lostPollVerdict(entry, entry.ticket, me) !== 'ended') return [];
      if (ageMs > maxAgeMs) {
        // Unless a poll has just written the agent's file anew.
        if (statSync(file, { throwIfNoEntry: false })?.mtimeMs === writtenAt) rmSync(file, { force: true });
        return [];
      }
      if (!entry.attempt) return [];
      return [
        { ticket: entry.ticket, ageMs, ...entry.attempt, endedSeenAt: this.seenEnded(file, entry, now) },
      ];
    });
  }

  /**
   * When a process here first saw the owner of `entry` (in `file`) ended: its note, or `now`,
   * noted in the file (its time of change kept: it dates the attempt). Best effort.
   */
  private seenEnded(file: string, entry: TicketEntry, now: number): number {
    if (entry.endedSeenAt !== undefined) return Math.min(entry.endedSeenAt, now);
    try {
      const { atimeMs, mtimeMs } = statSync(file);
      this.write(file, { ...entry, endedSeenAt: now });
      utimesSync(file, atimeMs / 1000, mtimeMs / 1000);
    } catch {
      // Unnoted: the next reader counts the grace from its own look.
    }
    return now;
  }

  /** Written whole, then renamed: a reader never sees half a file. */
  private write(file: string, entry: TicketEntry): void {
    const part = this.partOf(file);
    writeFileSync(part, JSON.stringify(entry), { mode: 0o600 });
    renameSync(part, file);
  }

  /** {@link write} off the event loop: for the write every poll makes. */
  private async writeSoon(file: string, entry: TicketEntry): Promise<void> {
    const part = this.partOf(file);
    await writeFile(part, JSON.stringify(entry), { mode: 0o600 });
    await rename(part, file);
  }

  /** A temporary name for a write of `file`: this process's, and this write's (writes may overlap). */
  private partOf(file: string): string {
    return `${file}.${process.pid}.${++this.parts}.part`;
  }

  /**
   * Creates the directory if need be; usable only when it is this user's and nobody else may
   * write to it (a directory planted under the shared temporary directory by another user could
   * otherwise read the task tokens or plant tickets). Not usable: nothing is recorded, every
   * verdict is `unknown`.
   */
  private ready(): boolean {
    if (this.usable !== undefined) return this.usable;
    if (this.dir === false) return (this.usable = false);
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const st = statSync(this.dir);
      const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
      this.usable = st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0;
    } catch {
      this.usable = false;
    }
    return this.usable;
  }

  private readFile(file: string): TicketEntry | undefined {
    try {
      const parsed = TicketEntrySchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  private fileOf(agentKey: string): string {
    // Hashed: an agent key may hold any character.
    return join(
      this.dir as string,
      `${createHash('sha256').update(agentKey).digest('hex').slice(0, 32)}.json`,
    );
  }
}
